package index

// Resolution by type (step 0 of resolve.go). The parser gives a call's qualifier
// type as written (edges.target_type): "B", "pkg.B", or "()F" / "()pkg.F" for the
// result of calling F. Here the type is located in the repository from the file's
// point of view (its own file, its Go package, its imports), then its methods are
// matched: a Go method by receiver in the type's package, a Python/JS method by
// its class. A located type without the method passes to its embedded types (Go)
// or bases (Python, JS), two levels deep. A type the repository does not define is
// external: the call stays unresolved rather than bound to a method of another
// type with the same name. A call through a Go interface resolves to the methods
// of the types implementing it (inferred, or ambiguous); through another interface
// it is left to the name steps (ambiguous or inferred, never exact).

// typeKinds are the symbol kinds a qualifier's type can be.
const typeKinds = `('class','struct','interface','type','enum')`

// splitType names the parts of a type as written: tpkg.tname.
const splitType = `CROSS JOIN LATERAL (SELECT regexp_replace(r.t, '^.*\.', '') AS tname,
	CASE WHEN strpos(r.t, '.') > 0 THEN regexp_replace(r.t, '\.[^.]*$', '') ELSE '' END AS tpkg) n`

// inScope ranks where definition s (file f) stands from the typed edge r's file:
// its own file, its Go package, a module it imports under tpkg (or, for a bare
// name, a file it imports names from). NULL: out of reach.
const inScope = `CASE WHEN n.tpkg = '' AND s.file_id = r.ctx_file THEN 0
	WHEN n.tpkg = '' AND r.language = 'go' AND f.language = 'go' AND f.dir = r.ctx_dir THEN 1
	WHEN EXISTS (SELECT 1 FROM res_imports i WHERE i.file_id = r.ctx_file AND i.qual = n.tpkg
	             AND (i.target_file = s.file_id OR (r.language = 'go' AND f.language = 'go' AND i.target_path = f.dir))) THEN 2
	END`

// The steps that update a session table from a join of it with the
// repository's tables name that join in a WITH clause: PostgreSQL inlines it
// (the same plan as a FROM subquery), and Citus, which refuses an UPDATE of a
// local table whose FROM subquery joins local and distributed tables, runs it
// as a query of its own first.
var typedSteps = []struct{ name, sql string }{
	{"typed edges", `
		INSERT INTO res_typed
		SELECT e.id AS edge_id, e.kind, e.language, e.qual, e.target_name, e.file_id AS ctx_file, e.dir AS ctx_dir, e.ttype AS t
		FROM res_edges e WHERE e.kind IN ('calls','reads','writes') AND e.ttype <> ''`},
	// "()F": the type is F's result type, named from F's file; calling a class
	// (Python C(), a JS factory named like it) gives the class.
	{"call results", `
		WITH x AS (SELECT DISTINCT ON (c.edge_id) c.edge_id, c.t, c.file_id, c.dir FROM (
			SELECT r.edge_id, CASE WHEN s.kind = 'class' THEN s.name ELSE coalesce(s.result_type, '') END AS t,
			       s.file_id, f.dir, f.path, s.start_line, s.kind, s.qualified_name, ` + inScope + ` AS rnk
			FROM (SELECT edge_id, language, ctx_file, ctx_dir, substr(t, 3) AS t FROM res_typed WHERE t LIKE '()%') r
			` + splitType + `
			JOIN symbols s ON s.repository_id = $1 AND s.name = n.tname AND s.kind IN ('function','class')
			JOIN files f ON f.repository_id = $1 AND f.id = s.file_id) c
		      WHERE c.rnk IS NOT NULL
		      ORDER BY c.edge_id, c.rnk, c.path COLLATE "C", c.start_line, c.kind, c.qualified_name COLLATE "C")
		UPDATE res_typed r SET t = x.t, ctx_file = x.file_id, ctx_dir = x.dir
		FROM x WHERE r.edge_id = x.edge_id`},
	{"imports of result files", contextImports},
	// "T#f" (Go): the type of field f of struct T, declared in another file; a
	// chain T#f#g takes one field a round.
	{"field types", fieldTypes},
	{"imports of field files", contextImports},
	{"field types, second", fieldTypes},
	{"imports of field files, second", contextImports},
	{"field types, third", fieldTypes},
	{"imports of field files, third", contextImports},
	// F, or the fields of T, of a package imported from outside the repository
	// (os.Open, r.Header.Get on *http.Request): the result is external too.
	{"external results", `
		INSERT INTO res_out (edge_id, sid, confidence)
		SELECT r.edge_id, NULL, 'unresolved' FROM res_typed r
		WHERE (r.t LIKE '()%.%' OR split_part(r.t, '#', 1) LIKE '%.%')
		  AND EXISTS (SELECT 1 FROM res_imports i WHERE i.file_id = r.ctx_file AND i.target_path IS NULL
		      AND i.qual = regexp_replace(split_part(regexp_replace(r.t, '^\(\)', ''), '#', 1), '\.[^.]*$', ''))
		ON CONFLICT DO NOTHING`},
	// An unknown F or field says nothing about the type: the name steps decide.
	{"unknown results", `DELETE FROM res_typed WHERE t = '' OR t LIKE '()%' OR t LIKE '%#%'`},
	// Analysed first: a guess of its size had the bindings below read by a scan
	// of every edge (~125 ms at $GOROOT/src scale for a one-file change).
	{"analyse typed edges", `ANALYZE res_typed`},
	{"analyse typed", `ANALYZE res_typed, res_imports`},
	// The type's definition, nearest first. A bare Python/JS class name no scope
	// reaches counts when the repository defines it once. Analysed tables, one
	// equality join per scope: a CASE over every pair of edge and same-named type,
	// or a join over unanalysed CTEs, planned nested loops costing seconds.
	{"type names", `
		INSERT INTO res_tq
		SELECT r.edge_id, r.language, r.ctx_file, r.ctx_dir, n.tname, n.tpkg FROM res_typed r ` + splitType},
	{"types", `
		INSERT INTO res_ts
		SELECT s.id, s.name, s.file_id, s.kind, s.start_line, s.qualified_name, f.dir, f.language, f.path
		FROM symbols s JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND s.kind IN ` + typeKinds + ` AND s.name IN (SELECT tname FROM res_tq)`},
	{"analyse type names", `ANALYZE res_tq, res_ts`},
	{"type locations", `
		INSERT INTO res_tloc
		WITH c AS (
			SELECT q.edge_id, ts.*, 0 AS rnk FROM res_tq q JOIN res_ts ts ON ts.name = q.tname AND ts.file_id = q.ctx_file
			WHERE q.tpkg = ''
			UNION ALL
			SELECT q.edge_id, ts.*, 1 FROM res_tq q JOIN res_ts ts ON ts.name = q.tname AND ts.dir = q.ctx_dir AND ts.language = 'go'
			WHERE q.tpkg = '' AND q.language = 'go'
			UNION ALL
			SELECT q.edge_id, ts.*, 2 FROM res_tq q
			JOIN res_imports i ON i.file_id = q.ctx_file AND i.qual = q.tpkg
			JOIN res_ts ts ON ts.name = q.tname
			     AND (ts.file_id = i.target_file OR (q.language = 'go' AND ts.language = 'go' AND ts.dir = i.target_path))
			UNION ALL
			SELECT q.edge_id, ts.*, 3 FROM res_tq q JOIN res_ts ts ON ts.name = q.tname AND ts.language <> 'go'
			WHERE q.tpkg = '' AND q.language <> 'go')
		SELECT DISTINCT ON (edge_id) edge_id, id AS tid, name AS tname, dir AS tdir, language AS tlang, kind AS tkind, rnk,
		       count(*) FILTER (WHERE rnk = 3) OVER (PARTITION BY edge_id) AS far
		FROM c
		ORDER BY edge_id, rnk, path COLLATE "C", start_line, kind, qualified_name COLLATE "C"`},
	// The Go types implementing the interfaces calls go through.
	{"implementations", `
		INSERT INTO res_impl
		SELECT DISTINCT t.tid, ty.name, tf.dir
		FROM (SELECT DISTINCT tid FROM res_tloc WHERE tkind = 'interface' AND tlang = 'go') t
		JOIN edges ie ON ie.repository_id = $1 AND ie.target_id = t.tid AND ie.kind = 'implements'
		JOIN symbols ty ON ty.repository_id = $1 AND ty.id = ie.source_id
		JOIN files tf ON tf.repository_id = $1 AND tf.id = ty.file_id`},
	{"analyse implementations", `ANALYZE res_tloc, res_impl`},
	// Through a Go interface: the methods of the types implementing it (edges of
	// linkGoImplementations), inferred (one implementation known) or ambiguous.
	{"interface implementations", settle(`
		SELECT t.edge_id, d.id AS sid, 0 AS rnk, 'inferred' AS conf, d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM res_tloc t JOIN res_typed r ON r.edge_id = t.edge_id
		JOIN res_impl m ON m.tid = t.tid
		JOIN res_defs d ON d.name = r.target_name AND d.kind = 'method' AND d.language = 'go'
		     AND d.dir = m.dir AND d.receiver = m.name
		WHERE t.tkind = 'interface' AND t.tlang = 'go' AND r.kind = 'calls'`)},
	// Through an interface no known type implements, or a class name defined more
	// than once and in no scope: the type is not known after all.
	{"unknown types", `
		DELETE FROM res_typed r USING res_tloc t
		WHERE t.edge_id = r.edge_id AND (t.tkind = 'interface' OR (t.rnk = 3 AND t.far > 1))`},
	{"drop unknown type locations", `DELETE FROM res_tloc t WHERE NOT EXISTS (SELECT 1 FROM res_typed r WHERE r.edge_id = t.edge_id)`},
	{"parents of the types", insertParents(`SELECT tid FROM res_tloc`)},
	{"parents of the parents", insertParents(`SELECT parent FROM res_parents EXCEPT SELECT child FROM res_parents`)},
	{"analyse types", `ANALYZE res_parents`},
	// Two branches, one equality join each: with the two rules ORed in one join
	// condition the planner could hash on the name only and tested every method
	// of that name against every typed call (17 s of a $GOROOT/src first index).
	// The typed calls are joined to their type first (OFFSET 0 keeps that order):
	// misled by the CASE, the planner paired every call with every method of its
	// name first (4.8M rows for 120k calls, 38 s).
	{"typed methods", settle(`
		SELECT q.edge_id, d.id AS sid, 0 AS rnk, 'exact' AS conf, d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM (SELECT t.edge_id, t.tdir, t.tname, r.target_name, ` + memberKind + ` AS mkind
		      FROM res_tloc t JOIN res_typed r ON r.edge_id = t.edge_id
		      WHERE r.qual <> 'super' AND t.tlang = 'go' OFFSET 0) q
		JOIN res_defs d ON d.name = q.target_name AND d.kind = q.mkind
		     AND d.language = 'go' AND d.dir = q.tdir AND d.receiver = q.tname
		UNION ALL
		SELECT t.edge_id, d.id AS sid, 0 AS rnk, 'exact' AS conf, d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM res_tloc t JOIN res_typed r ON r.edge_id = t.edge_id
		JOIN res_defs d ON d.name = r.target_name AND d.kind = ` + memberKind + ` AND d.parent_id = t.tid
		WHERE r.qual <> 'super' AND t.tlang <> 'go'`)},
	// Promoted (Go, exact: the language decides) or inherited (Python, JS: the
	// first base in order that has it; inferred, a subclass may override at run
	// time). Go methods at the same depth are ambiguous.
	{"embedded and base methods", settle(`
		SELECT t.edge_id, d.id AS sid,
		       b.depth * 1000000 + CASE WHEN b.plang = 'go' THEN 0 ELSE b.ord END AS rnk,
		       CASE WHEN b.plang = 'go' THEN 'exact' ELSE 'inferred' END AS conf,
		       d.path, d.start_line, d.kind, d.qualified_name AS qname
		FROM res_tloc t JOIN res_typed r ON r.edge_id = t.edge_id
		JOIN (SELECT p1.child, p1.parent, p1.pname, p1.pdir, p1.plang, 1 AS depth, p1.ord FROM res_parents p1
		      UNION ALL
		      SELECT p1.child, p2.parent, p2.pname, p2.pdir, p2.plang, 2, p1.ord * 1000 + p2.ord
		      FROM res_parents p1 JOIN res_parents p2 ON p2.child = p1.parent) b ON b.child = t.tid
		JOIN res_defs d ON d.name = r.target_name AND d.kind = ` + memberKind + `
		     AND ((b.plang = 'go' AND d.language = 'go' AND d.dir = b.pdir AND d.receiver = b.pname)
		          OR (b.plang <> 'go' AND d.parent_id = b.parent))
		WHERE ` + notDecided2)},
	// The type is known and has no such method: no name guess for these.
	{"typed without a target", `
		INSERT INTO res_out (edge_id, sid, confidence)
		SELECT edge_id, NULL, 'unresolved' FROM res_typed
		ON CONFLICT DO NOTHING`},
}

// contextImports adds to res_imports the import bindings of the files the
// typed edges are now read from (a call result's or a field's file), which
// the next steps look types up from (inScope, external results). Without it
// an edge's answer depended on which other edges the run decided: a full
// pass had the bindings of every file with an unresolved edge, a one-file
// run only its own, and c.Request.URL.Path (Request an *http.Request,
// declared in another file) fell through to a guess by name (issue 36, 1).
const contextImports = `
		INSERT INTO res_imports
		SELECT DISTINCT e.file_id, e.target_qualifier, e.target_path, tf.id
		FROM edges e
		LEFT JOIN files tf ON tf.repository_id = e.repository_id AND tf.path = e.target_path
		WHERE e.repository_id = $1 AND e.kind = 'imports'
		  AND e.file_id IN (SELECT ctx_file FROM res_typed)
		  AND e.file_id NOT IN (SELECT file_id FROM res_imports)`

// fieldTypes replaces "T#f..." by the type of field f of T (symbols.result_type;
// "T#f[]" by the element type of a slice, array or map field),
// T located from the edge's file as a call result's F is, and continues from
// the field's file. A field of no known type leaves "" (the name steps decide).
const fieldTypes = `
		WITH x AS (SELECT DISTINCT ON (c.edge_id) c.edge_id, c.t, c.file_id, c.dir FROM (
			SELECT r.edge_id, CASE WHEN ft.t = '' THEN '' ELSE ft.t || r.rest END AS t,
			       s.file_id, f.dir, f.path, s.start_line, s.kind, s.qualified_name, ` + inScope + ` AS rnk
			FROM (SELECT edge_id, language, ctx_file, ctx_dir, split_part(t, '#', 1) AS t,
			             regexp_replace(split_part(t, '#', 2), '\[\]$', '') AS field, split_part(t, '#', 2) LIKE '%[]' AS elem,
			             CASE WHEN t LIKE '%#%#%' THEN '#' || substr(t, length(split_part(t, '#', 1)) + length(split_part(t, '#', 2)) + 3) ELSE '' END AS rest
			      FROM res_typed WHERE t LIKE '%#%' AND t NOT LIKE '()%') r
			` + splitType + `
			JOIN symbols s ON s.repository_id = $1 AND s.kind = 'field' AND s.name = r.field AND s.receiver = n.tname
			-- "[]E" (a slice, array or map field) gives E to a range (f[]), nothing else
			CROSS JOIN LATERAL (SELECT CASE WHEN r.elem AND s.result_type LIKE '[]%' THEN substr(s.result_type, 3)
			                                WHEN NOT r.elem AND s.result_type NOT LIKE '[]%' THEN coalesce(s.result_type, '')
			                                ELSE '' END AS t) ft
			JOIN files f ON f.repository_id = $1 AND f.id = s.file_id) c
		      WHERE c.rnk IS NOT NULL
		      ORDER BY c.edge_id, c.rnk, c.path COLLATE "C", c.start_line, c.kind, c.qualified_name COLLATE "C")
		UPDATE res_typed r SET t = x.t, ctx_file = x.file_id, ctx_dir = x.dir
		FROM x WHERE r.edge_id = x.edge_id`

// memberKind is the kind of member a typed edge r looks for on its type.
const memberKind = `(CASE WHEN r.kind = 'calls' THEN 'method' ELSE 'field' END)`

// notDecided2 is notDecided for a typed edge t.
const notDecided2 = `NOT EXISTS (SELECT 1 FROM res_out o WHERE o.edge_id = t.edge_id)`

// insertParents adds the embedded types (Go) and bases (Python, JS) of the types
// children selects. A Go embed "pkg.Base" is found through the embedding file's
// import of pkg; a base class by name, nearest file first (its own, one it
// imports, any).
func insertParents(children string) string {
	return `
		INSERT INTO res_parents
		SELECT c.id, p.id, p.name, pf.dir, pf.language, em.ord
		FROM symbols c
		JOIN files cf ON cf.repository_id = c.repository_id AND cf.id = c.file_id AND cf.language = 'go'
		CROSS JOIN LATERAL unnest(c.embeds) WITH ORDINALITY AS em(name, ord)
		CROSS JOIN LATERAL (SELECT regexp_replace(em.name, '^.*\.', '') AS tname,
			CASE WHEN strpos(em.name, '.') > 0 THEN regexp_replace(em.name, '\.[^.]*$', '') ELSE '' END AS tpkg) n
		JOIN symbols p ON p.repository_id = $1 AND p.name = n.tname AND p.kind IN ` + typeKinds + `
		JOIN files pf ON pf.repository_id = $1 AND pf.id = p.file_id AND pf.language = 'go'
		WHERE c.repository_id = $1 AND c.id IN (` + children + `)
		  AND ((n.tpkg = '' AND pf.dir = cf.dir)
		       OR EXISTS (SELECT 1 FROM edges i WHERE i.repository_id = $1 AND i.kind = 'imports'
		                  AND i.file_id = c.file_id AND i.target_qualifier = n.tpkg AND i.target_path = pf.dir))
		UNION ALL
		SELECT child, parent, pname, pdir, plang, row_number() OVER (PARTITION BY child ORDER BY line, edge_id)
		FROM (SELECT DISTINCT ON (ie.id) c.id AS child, p.id AS parent, p.name AS pname, pf.dir AS pdir,
		             pf.language AS plang, ie.line, ie.id AS edge_id
		      FROM symbols c
		      JOIN edges ie ON ie.repository_id = $1 AND ie.source_id = c.id AND ie.kind = 'inherits'
		      JOIN symbols p ON p.repository_id = $1 AND p.name = ie.target_name AND p.kind = 'class'
		      JOIN files pf ON pf.repository_id = $1 AND pf.id = p.file_id AND pf.language <> 'go'
		      WHERE c.repository_id = $1 AND c.id IN (` + children + `) AND c.language <> 'go'
		      ORDER BY ie.id,
		               CASE WHEN p.file_id = c.file_id THEN 0
		                    WHEN EXISTS (SELECT 1 FROM edges i WHERE i.repository_id = $1 AND i.kind = 'imports'
		                                 AND i.file_id = c.file_id AND i.target_file_id = p.file_id) THEN 1
		                    ELSE 2 END,
		               pf.path COLLATE "C", p.start_line, p.qualified_name COLLATE "C") b`
}
