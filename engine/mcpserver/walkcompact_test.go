package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// maxNodeChars bounds what one node of a walk costs on the wire; the README's
// ceiling for find_callers is the anchor plus limit (at most 100) nodes.
const maxNodeChars = 200

// TestWalkCompact (issue 38: find_callers of App.add_url_rule was 13,218
// characters for 29 nodes, path and lines repeated on every node): nodes are
// grouped by file, the path said once, lines a range, the revision hoisted.
func TestWalkCompact(t *testing.T) {
	e := newEnv(t, false)
	s := newRawSession(t, e.srv, 1<<20)
	s.send(initLine)
	s.wantResult("initialize", "1")
	s.send(initDone)
	for i, args := range []map[string]any{
		{"name": "IssueRefund", "path": "billing/", "depth": 3},
		{"name": "Backoff", "path": "internal/retry/", "depth": 2},
	} {
		for _, tool := range []string{"find_callers", "find_callees"} {
			text := toolWire(t, s, itoa(10+2*i+len(tool)%2), tool, args)
			var out mcpserver.WalkOut
			decode(t, text, &out)
			nodes := out.AllNodes()
			anchor := len(text)
			if j := strings.Index(text, `"files"`); j > 0 {
				anchor = j
			}
			t.Logf("%s %v: %d nodes in %d files, %d characters (%d for the anchor)", tool, args["name"], len(nodes), len(out.Files), len(text), anchor)
			if len(nodes) > 0 && (len(text)-anchor)/len(nodes) > maxNodeChars {
				t.Errorf("%s %v: %d characters a node, over %d: %s", tool, args["name"], (len(text)-anchor)/len(nodes), maxNodeChars, text)
			}
			for _, f := range out.Files {
				if n := strings.Count(text, `"`+f.Path+`"`); n != 1 {
					t.Errorf("%s: path %s written %d times", tool, f.Path, n)
				}
				for _, n := range f.Nodes {
					if strings.Contains(n.Lines, ":") || n.ID == 0 || n.QualifiedName == "" || len(n.Rev) > 12 {
						t.Errorf("%s: node %+v: want lines start-end, an id, a name, a short rev", tool, n)
					}
				}
			}
			if len(out.Revision) > 12 || len(out.Symbol.Rev) > 12 {
				t.Errorf("%s: revision %q", tool, out.Revision)
			}
		}
	}
}
