package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPSearchCodeStdioLarge measures search_code over stdio on a server
// bound to the repositories of $SPELUNK_BENCH_MCP_REPOS (comma-separated
// directories) in the database $SPELUNK_BENCH_MCP_DB, each indexed first if it
// is not (issue 18's target: two repositories of 50k chunks each, p95 < 50 ms).
// It runs only when both are set: the corpora are too big for make bench.
//
//	SPELUNK_BENCH_MCP_REPOS=/tmp/big/a,/tmp/big/b SPELUNK_BENCH_MCP_DB=postgres://... \
//	go test -run '^$' -bench MCPSearchCodeStdioLarge -benchtime 400x ./cmd/spelunk/
func BenchmarkMCPSearchCodeStdioLarge(b *testing.B) {
	repos, url := os.Getenv("SPELUNK_BENCH_MCP_REPOS"), os.Getenv("SPELUNK_BENCH_MCP_DB")
	if repos == "" || url == "" {
		b.Skip("set SPELUNK_BENCH_MCP_REPOS and SPELUNK_BENCH_MCP_DB")
	}
	bin := buildSpelunk(b)
	args := []string{"mcp", "--db", url, "--no-watch"}
	for _, r := range strings.Split(repos, ",") {
		idx := exec.Command(bin, "index", r, "--db", url)
		if out, err := idx.CombinedOutput(); err != nil {
			b.Fatalf("index %s: %v\n%s", r, err, out)
		}
		args = append(args, "--repo", r)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(bin, args...)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	// Go's own names and questions: the default corpora are parts of $GOROOT/src.
	queries := []string{"ParseDuration", "http.Request.Context", "how is the response body closed after reading",
		"compare two byte slices in constant time", "TypeCheck", "read the next line from a buffered reader",
		"escape analysis of a closure", "Dialer.DialContext", "sort a slice with a custom less function",
		"where are goroutines scheduled onto threads"}
	for _, q := range queries { // warm the caches and the embedder
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": q}}); err != nil {
			b.Fatal(err)
		}
	}
	benchSearchStdio(b, cs, queries)
}
