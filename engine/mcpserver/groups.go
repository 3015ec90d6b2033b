package mcpserver

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// Tool groups, for serving only some (spelunk mcp --tools): an agent pays for
// every definition on every turn, so one that only reads code need not carry the
// memory tools.
const (
	GroupCode   = "code"   // read the index: search, symbols, source, graph, context
	GroupMemory = "memory" // the agents' shared memory
	GroupAdmin  = "admin"  // change the index or decide for a person: index_file, resolve_conflict
)

// Groups are the tool groups in serving order.
var Groups = []string{GroupCode, GroupMemory, GroupAdmin}

// CheckGroups refuses an unknown group, naming the known ones.
func CheckGroups(groups []string) error {
	for _, g := range groups {
		if !contains(Groups, g) {
			return fmt.Errorf("unknown tool group %q: use %s", g, strings.Join(Groups, ", "))
		}
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// register adds the tools of the groups asked for (nil = all). Descriptions say
// what a tool returns and when to use it, once: argument details live in the
// input schema, and nothing is repeated across tools. A tool every call of which
// would be refused is not listed: resolve_conflict unless the server lets agents
// resolve, the code and admin tools of a server started without its database.
func (s *Server) register(groups []string) {
	on := func(g string) bool {
		if s.cfg.Unreachable != nil && g != GroupMemory {
			return false
		}
		return groups == nil || contains(groups, g)
	}
	if on(GroupCode) {
		addTool(s, tool{"search_code", "Hybrid code search: a name, question, pasted error or issue. Per result: id, lines, kind, name, sig, score, why.", reads,
			enums{"granularity": {"symbols", "files"}, "detail": {"compact", "explain"}, "channels": channelNames()}}, s.searchCode)
		addTool(s, tool{"search_symbols", "Find definitions by name or substring: id, lines, kind, name, signature; no source.", reads,
			enums{"kind": symbols.Kinds}}, indexedOnly(s, s.searchSymbols))
		addTool(s, tool{"read_symbol", "Source of a symbol by id, name, or path and start_line (at most 32 KiB).", reads, nil}, indexedOnly(s, s.readSymbol))
		walkEnums := enums{"min_confidence": {"exact", "inferred", "ambiguous"}, "relation": {"calls", "reads", "writes"},
			"tests": graph.TestsValues}
		addTool(s, tool{"find_callers", "Who calls or inherits from a symbol, or reads/writes a field. Nodes by file, tests last.", reads, walkEnums}, indexedOnly(s, s.walker(graph.Callers)))
		addTool(s, tool{"find_callees", "What a symbol calls, or the fields it reads/writes. Nodes by file, external calls.", reads, walkEnums}, indexedOnly(s, s.walker(graph.Callees)))
		addTool(s, tool{"find_imports", "What a file imports, or what imports a file, directory or module.", reads,
			enums{"direction": {"imports", "importers"}}}, indexedOnly(s, s.findImports))
		addTool(s, tool{"retrieve_context", "Prompt-ready source of whole symbols matching a query; the whole answer fits the token budget.", reads, nil}, indexedOnly(s, s.retrieveContext))
	}
	if on(GroupMemory) {
		s.memoryTools = map[string]bool{"briefing": true, "recall": true, "remember": true, "supersede_memory": true,
			"invalidate_memory": true, "set_nugget": true, "list_conflicts": true}
		addTool(s, tool{"briefing", "Call first: top memories, nuggets, the latest state, open conflict count.", reads, nil}, s.briefing)
		addTool(s, tool{"recall", "Search live memories by meaning and words.", reads, nil}, s.recall)
		addTool(s, tool{"remember", "Store a memory; one contradicting another comes back DISPUTED with the conflict.", adds,
			enums{"kind": {"fact", "decision", "rule", "episode"}}}, s.remember)
		addTool(s, tool{"supersede_memory", "Mark a memory replaced by a newer one (kept for lineage); not for a DISPUTED one.", retires, nil}, s.supersede)
		addTool(s, tool{"invalidate_memory", "Tombstone a memory that no longer holds (kept for audit); not for a DISPUTED one.", retires, nil}, s.invalidate)
		addTool(s, tool{"set_nugget", "Set a project-wide key/value fact (last write wins, history kept).", sets, nil}, s.setNugget)
		addTool(s, tool{"list_conflicts", "Memory conflicts with their memories.", reads, enums{"status": {"open", "resolved", "all"}}}, s.listConflicts)
	}
	if on(GroupAdmin) {
		addTool(s, tool{"index_file", "Index a working-tree file now (after an edit or a stale result): counts and changes.", sets, nil}, s.indexFile)
		if s.cfg.AllowResolve {
			addTool(s, tool{"resolve_conflict", "Resolve a memory conflict as a whole (this server lets agents decide).", decides,
				enums{"action": {"keep", "both", "merge", "invalidate"}}}, s.resolveConflict)
		}
	}
}

// tool is a tool's definition: name, description, behaviour hints for clients
// (which may auto-approve a read), and the fixed values of its fields.
type tool struct {
	name, desc string
	hints      mcp.ToolAnnotations
	enums      enums
}

// enums are the allowed values of an input's fields (of an array's items for an
// array field), declared in the schema.
type enums map[string][]string

var no = new(bool)

// The hints of each kind of tool (every hint is stated, none left to a default).
var (
	reads   = mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: no}
	adds    = mcp.ToolAnnotations{DestructiveHint: no}                       // a new memory each call
	sets    = mcp.ToolAnnotations{DestructiveHint: no, IdempotentHint: true} // the same value again changes nothing
	retires = mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true}
	decides = mcp.ToolAnnotations{DestructiveHint: ptr(true)}
)

func ptr[T any](v T) *T { return &v }

// withEnums sets the allowed values of the schema's fields.
func withEnums(sc *jsonschema.Schema, e enums) *jsonschema.Schema {
	for field, values := range e {
		p := sc.Properties[field]
		if p == nil {
			panic("enum for unknown field " + field)
		}
		if p.Items != nil {
			p = p.Items
		}
		p.Enum = make([]any, len(values))
		for i, v := range values {
			p.Enum[i] = v
		}
	}
	return sc
}

func channelNames() []string {
	names := make([]string, len(search.AllChannels))
	for i, c := range search.AllChannels {
		names[i] = string(c)
	}
	return names
}
