package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// walkVerb is one of the graph walk commands: callers, callees, readers, writers.
type walkVerb struct {
	use   string
	short string
	dir   graph.Direction
	rel   graph.Relation
}

var walkVerbs = []walkVerb{
	{"callers", "List the symbols that call NAME (and, with --depth, their callers)", graph.Callers, graph.CallsRel},
	{"callees", "List the symbols NAME calls (and, with --depth, what those call)", graph.Callees, graph.CallsRel},
	{"readers", "List the definitions that read the field NAME (Type.field; with --depth, their callers)", graph.Callers, graph.ReadsRel},
	{"writers", "List the definitions that write the field NAME (Type.field; with --depth, their callers)", graph.Callers, graph.WritesRel},
}

// checkWalkFlags refuses the walk flags' values that make no sense.
func checkWalkFlags(depth, limit int, minConf, tests string) error {
	if depth < 1 || depth > graph.MaxDepth {
		return usagef("--depth must be between 1 and %d", graph.MaxDepth)
	}
	if err := oneOf("min-confidence", minConf, walkConfidences...); err != nil {
		return err
	}
	if err := oneOf("tests", tests, graph.TestsValues...); err != nil {
		return err
	}
	if limit < 0 {
		return usagef("--limit must be 0 (no limit) or more")
	}
	return nil
}

// outsideNames are the distinct names a walk's unresolved calls use, in order.
func outsideNames(w graph.Walk) []string {
	seen := map[string]bool{}
	var names []string
	for _, u := range w.Unresolved {
		n := u.Name
		if u.Qual != "" {
			n = u.Qual + "." + n
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}

func newWalkCmd(g *globals, v walkVerb) *cobra.Command {
	var path, minConf, tests string
	var depth, pick, limit int
	dir := v.dir
	cmd := &cobra.Command{
		Use:   v.use + " NAME",
		Short: v.short,
		Args:  rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := checkWalkFlags(depth, limit, minConf, tests); err != nil {
				return err
			}
			db, rec, err := openRepo(cmd, g)
			if err != nil {
				return err
			}
			defer db.Close()
			lookup := lookupSymbol
			if v.rel != graph.CallsRel {
				lookup = lookupField
			}
			anchor, err := lookup(cmd, db, rec, args[0], pickOf(path, pick))
			if err != nil {
				return err
			}
			w, err := graph.SymbolsWith(ctx, db, rec.ID, []int64{anchor.ID}, dir,
				graph.Options{Depth: depth, MinConfidence: graph.Confidence(minConf), Relation: v.rel, Tests: graph.Tests(tests)})
			if err != nil {
				return err
			}
			more := 0
			if limit > 0 && len(w.Nodes) > limit {
				more, w.Nodes = len(w.Nodes)-limit, w.Nodes[:limit]
			}
			if err := markStale(ctx, db, rec, append(w.Symbols(), &anchor)...); err != nil {
				return err
			}
			enc := json.NewEncoder(os.Stdout)
			if !g.json {
				fmt.Printf("%s of %s (%s:%d)  %s\n", v.use, anchor.QualifiedName, anchor.Path, anchor.StartLine, revMark(anchor))
			}
			for _, n := range w.Nodes {
				if g.json {
					if err := enc.Encode(walkLine{Path: n.Path, Name: n.Name, QualifiedName: n.QualifiedName, StartLine: n.StartLine,
						Depth: n.Depth, Edge: n.Kind, Line: n.Line, Confidence: string(n.Confidence), Candidates: n.Candidates,
						Revision: n.Revision, Stale: n.Stale}); err != nil {
						return err
					}
					continue
				}
				fmt.Printf("%s%s  %s:%d  %s%s%s\n", strings.Repeat("  ", n.Depth), n.QualifiedName, n.Path, n.StartLine, revMark(n.Symbol), edgeMark(n), confidenceMark(n))
			}
			if !g.json && dir == graph.Callees && len(w.Unresolved) > 0 {
				fmt.Printf("  (outside the repository: %s)\n", strings.Join(outsideNames(w), ", "))
			}
			if !g.json && more > 0 {
				fmt.Printf("  (%d more: raise --limit)\n", more)
			}
			if !g.json && len(w.Nodes) == 0 {
				fmt.Println("  (none found)" + testsNote(graph.Tests(tests)))
			}
			if !g.json {
				printStaleNote(os.Stdout, append(w.Symbols(), &anchor))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "pick among same-named symbols by path")
	cmd.Flags().IntVar(&pick, "pick", 0, "the Nth of several definitions of NAME (as listed when NAME is ambiguous)")
	cmd.Flags().IntVar(&depth, "depth", 1, "hops to follow")
	cmd.Flags().StringVar(&tests, "tests", "include", "symbols in test code: include (listed after the rest), exclude (and walk no further through them), only")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most this many (0: all)")
	cmd.Flags().StringVar(&minConf, "min-confidence", "", "only links this confident or better ("+strings.Join(walkConfidences, ", ")+")")
	return cmd
}

// testsNote says what an empty answer left out.
func testsNote(t graph.Tests) string {
	switch t {
	case graph.TestsExclude:
		return " outside tests (--tests include lists those in tests too)"
	case graph.TestsOnly:
		return " in tests"
	}
	return ""
}

// walkConfidences are the values of --min-confidence, best first (every link
// resolves to a symbol, so unresolved would filter nothing).
var walkConfidences = []string{string(graph.Exact), string(graph.Inferred), string(graph.Ambiguous)}

// edgeMark is the text output's tag of a link that is not a call or a field
// access: "  [inherits]", "  [implements]", "  [references]" (a subclass among
// a class's callers would otherwise read as a caller).
func edgeMark(n graph.Node) string {
	switch n.Kind {
	case "", "calls", "reads", "writes":
		return ""
	}
	return "  [" + n.Kind + "]"
}

// confidenceMark is the text output's tag of a link not known exactly:
// "  [inferred]", "  [ambiguous: 3 candidates]"; exact links carry none.
func confidenceMark(n graph.Node) string {
	switch {
	case n.Confidence == graph.Exact:
		return ""
	case n.Confidence == graph.Ambiguous && n.Candidates > 1:
		return fmt.Sprintf("  [ambiguous: %d candidates]", n.Candidates)
	}
	return "  [" + string(n.Confidence) + "]"
}

type walkLine struct {
	Path          string `json:"path"`
	Name          string `json:"name"`
	QualifiedName string `json:"qualified_name"`
	StartLine     int    `json:"start_line"`
	Depth         int    `json:"depth"`
	Edge          string `json:"edge"`
	Line          int    `json:"line"`
	Confidence    string `json:"confidence"`
	Candidates    int    `json:"candidates,omitempty"`
	Revision      string `json:"revision"` // the commit it was indexed at, or working-tree
	Stale         bool   `json:"stale,omitempty"`
}

func newImportsCmd(g *globals, importers bool) *cobra.Command {
	var depth, limit int
	var tests string
	use, short := "imports PATH", "List what the file at PATH imports (repository files and external modules)"
	if importers {
		use, short = "importers PATH|MODULE", "List the files that import PATH (a file or Go package directory) or an external MODULE"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := checkWalkFlags(depth, limit, "", tests); err != nil {
				return err
			}
			db, rec, err := openRepo(cmd, g)
			if err != nil {
				return err
			}
			defer db.Close()
			var links []graph.FileLink
			if importers {
				links, err = graph.Importers(ctx, db, rec.ID, args[0], depth, graph.Tests(tests))
			} else {
				if _, err := symbols.List(ctx, db, rec.ID, symbols.Filter{Path: args[0], Kind: "module", Limit: 1}); err != nil {
					return err
				}
				links, err = graph.Imports(ctx, db, rec.ID, args[0], depth)
			}
			if err != nil {
				return err
			}
			more := 0
			if limit > 0 && len(links) > limit {
				more, links = len(links)-limit, links[:limit]
			}
			empty := ""
			if importers && graph.Tests(tests) != graph.TestsInclude {
				empty = "  (none found)" + testsNote(graph.Tests(tests))
			}
			if err := printEach(cmd, g, links, func(l graph.FileLink) string {
				target := l.Path
				if target == "" {
					target = l.Module + " (external)"
				}
				return strings.Repeat("  ", l.Depth-1) + target
			}, empty); err != nil {
				return err
			}
			if !g.json && more > 0 {
				fmt.Printf("  (%d more: raise --limit)\n", more)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&depth, "depth", 1, "hops to follow")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most this many (0: all)")
	if importers {
		cmd.Flags().StringVar(&tests, "tests", "include", "importers in test code: include (listed after the rest), exclude (and walk no further through them), only")
	}
	return cmd
}
