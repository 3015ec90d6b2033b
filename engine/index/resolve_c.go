package index

// A bare call in a C++ method names a member of its class first, as C++ name
// lookup does: the parser marks those it sees in the file as calls on this;
// the others (members declared in a header) resolve here, by the caller's
// receiver, before any name step looks for a free function.
const cppMemberCalls = `
	SELECT e.id AS edge_id, d.id AS sid, 0 AS rnk, 'inferred' AS conf,
	       d.path, d.start_line, d.kind, d.qualified_name AS qname
	FROM res_edges e JOIN res_defs d ON d.name = e.target_name AND d.kind = 'method'
	     AND d.receiver = e.src_receiver AND d.language IN ('c','cpp')
	WHERE e.kind = 'calls' AND e.qual = '' AND e.src_receiver <> '' AND e.language = 'cpp' AND `

// C and C++ declare a function in a header and define it in a source file:
// the parser makes the declaration a chunk of its own, marked by a signature
// ending in ";" (engine/parse/c.go). A call resolves to what the caller can
// see, the declaration in an included header; when the repository defines
// that qualified name exactly once, the call goes to the definition instead,
// so that the callers of a function are those of its definition.

const cDeclarationTargets = `
	UPDATE res_out o SET sid = d.def_id
	FROM res_edges e, (
		SELECT decl.id AS decl_id, min(def.id) AS def_id, bool_or(def.is_test) AS def_test
		FROM symbols decl
		JOIN symbols def ON def.repository_id = decl.repository_id AND def.name = decl.name
		     AND def.qualified_name = decl.qualified_name AND def.kind = decl.kind
		     AND def.language IN ('c','cpp') AND def.signature NOT LIKE '%;'
		WHERE decl.repository_id = $1 AND decl.id IN (SELECT sid FROM res_out WHERE candidates IS NULL)
		  AND decl.language IN ('c','cpp') AND decl.kind IN ('function','method') AND decl.signature LIKE '%;'
		GROUP BY decl.id HAVING count(*) = 1) d
	WHERE o.sid = d.decl_id AND o.candidates IS NULL AND e.id = o.edge_id
	  AND (NOT d.def_test OR e.src_test)`

func init() {
	nameSteps = append([]struct{ name, sql string }{{"C++ members of the caller's class", settle(cppMemberCalls + notDecided)}}, nameSteps...)
	adjustSteps = append([]struct{ name, sql string }{{"C and C++ declarations to their definition", cDeclarationTargets}}, adjustSteps...)
}
