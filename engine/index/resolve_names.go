package index

// The name steps (1 to 5 of resolve.go) decide the edges the typed steps left:
// untyped qualifiers, bare calls, inherits, implements and references.

// boundToImport says the edge's qualifier is an import binding (billing.Refund):
// not a local name.
// notIntoTests keeps code outside tests from resolving into a test file: a Go
// package cannot see its _test.go files, and elsewhere production code does
// not import tests.
const notIntoTests = `(NOT d.is_test OR e.src_test)`

const boundToImport = `EXISTS (SELECT 1 FROM res_imports i WHERE i.file_id = e.file_id AND i.qual <> '' AND i.qual = e.qual)`

var nameSteps = []struct{ name, sql string }{
	// 0. this.m() in a function that is a member of an object (res.send =
	// function send() {...}, const api = { list() {...} }): the object's own
	// member of that name or alias (res.type = res.contentType = function ...),
	// beside it in the file. Inferred: `this` is the object only when the
	// function is called through it.
	{"members of the caller's object", settle(`
		SELECT e.id AS edge_id, d.id AS sid, 0 AS rnk, 'inferred' AS conf,
		       d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM res_edges e JOIN res_defs d ON d.file_id = e.file_id AND d.name = e.target_name AND d.parent_id = e.src_parent
		     AND d.kind IN ('function', 'method')
		WHERE e.src_in_object AND e.kind = 'calls' AND e.qual = 'this'
		  AND ` + langFamily("e.language") + ` = 'js' AND ` + notDecided)},
	// 1. Same file. A bare call or a self call to the receiver's own method is
	// decided by scope; a method through another qualifier is a guess by name.
	{"same file", settle(`
		SELECT e.id AS edge_id, d.id AS sid,
		       CASE WHEN d.receiver = e.src_receiver THEN 0 ELSE 1 END AS rnk,
		       CASE WHEN e.qual = '' OR (e.qual IN ('self','this','cls') AND d.receiver = e.src_receiver)
		            THEN 'exact' ELSE 'inferred' END AS conf,
		       d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM res_edges e JOIN res_defs d ON d.file_id = e.file_id AND d.name = e.target_name
		WHERE ` + qualifierRule + ` AND ` + notDecided + ` AND NOT ` + boundToImport)},
	// 2. A module the file imports: through its binding (pkg.Func, ns.f), exact, or,
	// for a bare name, any definition in an imported file (from x import f; import
	// {f}), inferred; first imported files, then imported Go packages (directories).
	{"imported files", settle(`
		SELECT e.id AS edge_id, d.id AS sid, CASE WHEN d.exported THEN 0 ELSE 1 END AS rnk,
		       CASE WHEN e.qual <> '' THEN 'exact' ELSE 'inferred' END AS conf,
		       d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM res_edges e
		JOIN res_imports i ON i.file_id = e.file_id AND i.target_file IS NOT NULL
		     AND (e.qual = '' OR i.qual = e.qual)
		-- A method only through a binding named as its class: the default export
		-- (import AxiosHeaders from './AxiosHeaders'; AxiosHeaders.from()).
		JOIN res_defs d ON d.file_id = i.target_file AND d.name = e.target_name
		     AND (d.kind <> 'method' OR (e.qual <> '' AND d.receiver = e.qual))
		WHERE ` + kindMatch + ` AND ` + notDecided)},
	// 2b. A name a Python package re-exports: the module imported (import pkg;
	// pkg.f()) or imported from (from pkg import f) does not define it, its
	// __init__.py imports it (rows.go, reexported) from the file that does. The
	// package's reference edge says where: decided just above in this run, or
	// stored by an earlier one.
	{"re-exported names", settle(`
		SELECT e.id AS edge_id, d.id AS sid, 0 AS rnk,
		       CASE WHEN e.qual <> '' THEN 'exact' ELSE 'inferred' END AS conf,
		       df.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM res_edges e
		JOIN res_imports i ON i.file_id = e.file_id AND i.target_file IS NOT NULL
		     AND (e.qual = '' OR i.qual = e.qual)
		-- The references of the imported files, read file by file (by key, as
		-- keyLookup): looked up by name, a common one (name, types) read every
		-- edge of that name in the repository once per edge, 7 s for 53 edges.
		JOIN (SELECT x.id, x.file_id, x.target_name, x.target_id, x.candidates FROM edges x
		      WHERE x.repository_id = $1 AND x.kind = 'references' AND x.target_qualifier = ''
		        AND x.file_id = ANY (ARRAY(SELECT DISTINCT target_file FROM res_imports WHERE target_file IS NOT NULL))
		      OFFSET 0) x ON x.file_id = i.target_file AND x.target_name = e.target_name
		-- The target of x computed first (OFFSET 0 keeps it apart), so d is read
		-- by its key: joined on the CASE itself, the planner paired every
		-- reference with every symbol of every file (12 s for 17 edges at
		-- sqlalchemy scale).
		CROSS JOIN LATERAL (SELECT CASE
		     WHEN EXISTS (SELECT 1 FROM res_out o WHERE o.edge_id = x.id)
		     THEN (SELECT o.sid FROM res_out o WHERE o.edge_id = x.id AND o.candidates IS NULL)
		     -- decided again by this run, not decided yet: unresolved so far
		     WHEN EXISTS (SELECT 1 FROM res_dangling g WHERE g.id = x.id) THEN NULL
		     WHEN x.candidates IS NULL THEN x.target_id END AS id OFFSET 0) t
		JOIN symbols d ON d.repository_id = $1 AND d.id = t.id
		     AND d.kind NOT IN ('method', 'module', 'part', 'block')
		JOIN files df ON df.repository_id = $1 AND df.id = d.file_id
		WHERE e.language = 'python' AND ` + kindMatch + ` AND ` + notDecided)},
	{"imported Go packages", settle(`
		SELECT e.id AS edge_id, d.id AS sid, CASE WHEN d.exported THEN 0 ELSE 1 END AS rnk, 'exact' AS conf,
		       d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM res_edges e
		JOIN res_imports i ON i.file_id = e.file_id AND i.target_path IS NOT NULL AND i.qual = e.qual
		JOIN res_defs d ON d.dir = i.target_path AND d.language = 'go' AND d.name = e.target_name AND d.kind <> 'method'
		WHERE e.language = 'go' AND ` + kindMatch + ` AND ` + notDecided)},
	// 3. The same Go package (directory): a bare name is in the package's scope.
	{"same Go package", settle(`
		SELECT e.id AS edge_id, d.id AS sid, 0 AS rnk,
		       CASE WHEN e.qual = '' THEN 'exact' ELSE 'inferred' END AS conf,
		       d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM res_edges e JOIN res_defs d ON d.dir = e.dir AND d.language = 'go' AND d.name = e.target_name
		     AND ` + notIntoTests + `
		WHERE e.language = 'go' AND ` + qualifierRule + ` AND ` + notDecided + ` AND NOT ` + boundToImport)},
	// 4. A name defined once in the repository. Not for a bare Go call (it can only
	// reach its own package), not for a bare call to a method, and not through a
	// qualifier bound to an external import (fmt.Println is not our Println).
	{"unique name", `
		INSERT INTO res_out (edge_id, sid, confidence)
		SELECT e.id, u.id, 'inferred'
		FROM res_edges e
		JOIN (SELECT name, ` + langFamily("language") + ` AS fam, kind = 'field' AS field,
		             min(id) AS id, min(kind) AS kind, bool_or(is_test) AS is_test
		      FROM res_defs GROUP BY 1, 2, 3 HAVING count(DISTINCT id) = 1) u
		     ON u.name = e.target_name AND u.fam = ` + langFamily("e.language") + ` AND (NOT u.is_test OR e.src_test)
		     AND u.field = (e.kind IN ('reads','writes'))
		WHERE NOT (e.language = 'go' AND e.qual = '')
		  AND NOT (e.qual = '' AND u.kind = 'method')
		  -- this.m() in an object's member that the object does not define: a
		  -- method it inherits (a prototype's), not another object's of that name.
		  AND NOT (e.qual = 'this' AND e.src_in_object)
		  AND ` + notDecided + `
		  AND NOT EXISTS (SELECT 1 FROM res_imports i WHERE i.file_id = e.file_id AND i.qual <> ''
		                  AND i.qual = e.qual AND i.target_path IS NULL)
		ON CONFLICT DO NOTHING`},
	// 5. A method call through a qualifier whose type nobody knows: every method of
	// that name in the language may be the target. Never one picked as if known.
	//
	// The edges still undecided are picked before they meet the definitions
	// (OFFSET 0 keeps the order): tested after the join, the check ran once per
	// pair, 4.6M times for 160k calls on $GOROOT/src (83 s).
	{"untyped method calls", settle(`
		SELECT e.id AS edge_id, d.id AS sid, 0 AS rnk, 'inferred' AS conf,
		       d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM (SELECT e.* FROM res_edges e
		      WHERE e.kind = 'calls' AND e.qual NOT IN ('', 'self', 'this', 'cls', 'super')
		        AND ` + notDecided + ` AND NOT ` + boundToImport + ` OFFSET 0) e
		JOIN res_defs d ON d.name = e.target_name AND d.kind = 'method'
		     AND ` + langFamily("d.language") + ` = ` + langFamily("e.language") + `
		     -- Declarations (.d.ts) and bundles (dist/) copy the sources' methods:
		     -- candidates only for code of their own kind.
		     AND (NOT ` + copiedCode("d.path") + ` OR ` + copiedCode("e.dir || '/'") + `)
		     AND ` + notIntoTests)},
	// The same for a field through an untyped qualifier, when few types have a
	// field of that name: beyond maxFieldCandidates (x.Name, x.ID) the list says
	// nothing and costs a row each; the edge stays unresolved.
	//
	// crowded are the names with more than that many fields that every edge may
	// reach (outside copied code; outside tests too, unless the edge is in a
	// test, which sees the tests' fields): their edges can only end over the
	// bound, so their pairs are never built (x.Name against every Name field was
	// most of the step's 15 s on $GOROOT/src; a test's x.id against the ~800 id
	// fields of sqlalchemy's tests, 1.4M pairs and 24 s for a 6-file change).
	{"untyped field accesses", settle(`
		WITH crowded AS (
			SELECT name, ` + langFamily("language") + ` AS fam,
			       count(*) FILTER (WHERE NOT is_test) > ` + maxFieldCandidates + ` AS for_code
			FROM res_defs
			WHERE kind = 'field' AND NOT ` + copiedCode("path") + `
			GROUP BY 1, 2 HAVING count(*) > ` + maxFieldCandidates + `)
		SELECT c.* FROM (
			SELECT e.id AS edge_id, d.id AS sid, 0 AS rnk, 'inferred' AS conf,
			       d.path, d.start_line, d.kind, d.qualified_name AS qname, count(*) OVER (PARTITION BY e.id) AS n
			FROM (SELECT e.* FROM res_edges e
			      WHERE e.kind IN ('reads','writes') AND e.qual NOT IN ('', 'self', 'this', 'cls', 'super')
			        AND NOT EXISTS (SELECT 1 FROM crowded w WHERE w.name = e.target_name AND w.fam = ` + langFamily("e.language") + `
			                        AND (e.src_test OR w.for_code))
			        AND ` + notDecided + ` AND NOT ` + boundToImport + ` OFFSET 0) e
			JOIN res_defs d ON d.name = e.target_name AND d.kind = 'field'
			     AND ` + langFamily("d.language") + ` = ` + langFamily("e.language") + `
			     AND (NOT ` + copiedCode("d.path") + ` OR ` + copiedCode("e.dir || '/'") + `)
			     AND ` + notIntoTests + `) c
		WHERE c.n <= ` + maxFieldCandidates)},
	// The steps after these read the decisions (the constructors look up each
	// decided class): without statistics res_out counted as a few rows, and
	// 146 constructors took 3 s of nested loops over every __init__.
	{"analyse decisions", `ANALYZE res_out`},
}

// maxFieldCandidates bounds an untyped field access's candidates (see above).
const maxFieldCandidates = "8"

// langFamily is the SQL for the languages that can call each other's code:
// JavaScript, TypeScript and TSX share one, C and C++ another (a .h file is
// either); Go and Python each stand alone (a
// Python call never lands on a JavaScript function of the same unique name).
func langFamily(col string) string {
	return "(CASE WHEN " + col + " IN ('javascript','typescript','tsx') THEN 'js' WHEN " + col + " IN ('c','cpp') THEN 'c' ELSE " + col + " END)"
}

// copiedCode is the SQL for a path holding copies of definitions written
// elsewhere: TypeScript declaration files and build output.
func copiedCode(col string) string {
	return "(" + col + " ~ '\\.d\\.[cm]?ts$' OR " + col + " ~ '(^|/)(dist|build)/')"
}
