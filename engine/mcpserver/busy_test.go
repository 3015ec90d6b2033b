package mcpserver_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// TestIndexFileWhileAnotherRunIndexes: while another run holds the repository's
// index lock, index_file answers at once that one is running (issue 11.1: two runs
// interleaving failed on duplicate keys), and once it ends index_file works.
func TestIndexFileWhileAnotherRunIndexes(t *testing.T) {
	e := newEnv(t, false)
	holding, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	opts := index.Options{Full: true, Workers: 1, ProgressEvery: time.Nanosecond}
	opts.Progress = func(p index.Progress) {
		if p.Phase == "resolving" {
			once.Do(func() { close(holding); <-release })
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := index.New(e.db, indextest.Embedder()).Index(context.Background(), e.root, opts)
		done <- err
	}()
	select {
	case <-holding:
	case err := <-done:
		t.Fatalf("the other run ended before pausing: %v", err)
	}
	// Bounded, so that a call that waits for the other run fails instead of
	// holding this test (which releases that run only afterwards).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "index_file", Arguments: map[string]any{"path": "billing/refund.go"}})
	cancel()
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the other run: %v", err)
	}
	if err != nil {
		t.Fatalf("index_file during another run: %v (it waited for that run)", err)
	}
	if !res.IsError {
		t.Fatalf("index_file during another run succeeded: %s", resultText(res))
	}
	wantContains(t, "index_file during another run", resultText(res), "another index of the repository is running")
	out := call[mcpserver.IndexFileOut](t, e.cs, "index_file", map[string]any{"path": "billing/refund.go"})
	if out.Symbols == 0 {
		t.Fatalf("index_file after the other run: %+v", out)
	}
}
