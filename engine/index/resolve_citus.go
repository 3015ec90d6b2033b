package index

// Edge resolution on Citus (pg.DB.Distributed, docs/OPERATIONS.md). Its steps
// join the session tables of restables.go with the repository's symbols, files
// and edges, through correlated subqueries and LATERAL joins that Citus cannot
// plan between local and distributed tables ("direct joins between distributed
// and local tables are not supported"). So on Citus the resolution's
// transaction first copies the repository's rows of those three tables into
// session tables of the same names, which PostgreSQL's search path finds
// before the distributed ones (pg_temp comes first): every step then runs on
// the coordinator as it does on one server, and the edges whose decision
// changed are written back in one statement, routed to the repository's shard.
//
// The copy is the repository's whole rows, so a resolution on Citus costs
// O(repository) however small the change: the price of the first version
// (docs/BENCHMARKS.md, "Citus").

// shadowCopies make the session copies; their indexes are those the steps'
// lookups use on the real tables.
var shadowCopies = []struct{ name, sql string }{
	{"copy the repository's files", `CREATE TEMP TABLE files ON COMMIT DROP AS
		SELECT * FROM public.files WHERE repository_id = $1`},
	{"copy the repository's symbols", `CREATE TEMP TABLE symbols ON COMMIT DROP AS
		SELECT * FROM public.symbols WHERE repository_id = $1`},
	{"copy the repository's edges", `CREATE TEMP TABLE edges ON COMMIT DROP AS
		SELECT *, target_id AS was_target, confidence AS was_confidence, candidates AS was_candidates,
		       target_file_id AS was_file, target_path AS was_path
		FROM public.edges WHERE repository_id = $1`},
	{"index the copied files", `CREATE INDEX ON pg_temp.files (id)`},
	{"index the copied symbols", `CREATE INDEX ON pg_temp.symbols (id)`},
	{"index the copied names", `CREATE INDEX ON pg_temp.symbols (name)`},
	{"index the copied edges", `CREATE INDEX ON pg_temp.edges (id)`},
	{"index the copied targets", `CREATE INDEX ON pg_temp.edges (target_name)`},
	{"analyse the copies", `ANALYZE pg_temp.files, pg_temp.symbols, pg_temp.edges`},
}

// shadowWriteBack writes the changed decisions back to the distributed edges.
const shadowWriteBack = `
	UPDATE public.edges p SET target_id = c.target_id, confidence = c.confidence,
	       candidates = c.candidates, target_file_id = c.target_file_id, target_path = c.target_path
	FROM (SELECT id, target_id, confidence, candidates, target_file_id, target_path FROM pg_temp.edges
	      WHERE (target_id, confidence, candidates, target_file_id, target_path)
	            IS DISTINCT FROM (was_target, was_confidence, was_candidates, was_file, was_path)) c
	WHERE p.repository_id = $1 AND p.id = c.id`
