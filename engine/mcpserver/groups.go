package mcpserver

import (
	"fmt"
	"strings"

	"github.com/spelunkhq/spelunk/engine/graph"
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
// input schema, and nothing is repeated across tools.
func (s *Server) register(groups []string) {
	on := func(g string) bool { return groups == nil || contains(groups, g) }
	if on(GroupCode) {
		addTool(s, "search_code", "Hybrid code search by name, question or pasted error. Returns results: id, lines (path:start-end), kind, name, sig, score, why; detail explain adds per-channel scores, granularity files ranks files.", s.searchCode)
		addTool(s, "search_symbols", "Find definitions by name or substring. Returns symbols (id, lines, kind, name, signature), no source.", indexedOnly(s, s.searchSymbols))
		addTool(s, "read_symbol", "Source of a symbol by id or name, or at path and start_line. Returns content (at most 32 KiB).", indexedOnly(s, s.readSymbol))
		addTool(s, "find_callers", "Who calls or inherits from a symbol, or reads/writes a field (relation). Returns nodes: edge, line, confidence.", indexedOnly(s, s.walker(graph.Callers)))
		addTool(s, "find_callees", "What a symbol calls, or the fields it reads/writes (relation). Returns nodes, and external calls.", indexedOnly(s, s.walker(graph.Callees)))
		addTool(s, "find_imports", "What a file imports, or what imports a file, directory or module. Returns links.", indexedOnly(s, s.findImports))
		addTool(s, "retrieve_context", "Prompt-ready source: whole symbols matching a query, packed under a token budget.", indexedOnly(s, s.retrieveContext))
	}
	if on(GroupMemory) {
		s.memoryTools = map[string]bool{"briefing": true, "recall": true, "remember": true, "supersede_memory": true,
			"invalidate_memory": true, "set_nugget": true, "list_conflicts": true}
		addTool(s, "briefing", "Call first: top memories, nuggets, the latest state, open conflict count.", s.briefing)
		addTool(s, "recall", "Search live memories by meaning and words.", s.recall)
		addTool(s, "remember", "Store a memory; one that contradicts another comes back DISPUTED with the conflict.", s.remember)
		addTool(s, "supersede_memory", "Mark a memory replaced by a newer one (kept for lineage).", s.supersede)
		addTool(s, "invalidate_memory", "Tombstone a memory that no longer holds (kept for audit).", s.invalidate)
		addTool(s, "set_nugget", "Set a project-wide key/value fact (last write wins, history kept).", s.setNugget)
		addTool(s, "list_conflicts", "List memory conflicts with their memories.", s.listConflicts)
	}
	if on(GroupAdmin) {
		addTool(s, "index_file", "Index a working-tree file now: after an edit, or for a stale result. Returns its symbols.", s.indexFile)
		addTool(s, "resolve_conflict", "Resolve a memory conflict; refused unless the server allows it (a person decides).", s.resolveConflict)
	}
}
