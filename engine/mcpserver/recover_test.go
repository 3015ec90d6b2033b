package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// TestPanicBecomesToolError: a handler that panics answers with a tool error and
// the session keeps serving.
func TestPanicBecomesToolError(t *testing.T) {
	s := New(Config{DB: &pg.DB{}})
	type in struct {
		X int `json:"x,omitempty"`
	}
	addTool(s, tool{"boom", "Panics.", reads, nil}, func(context.Context, *mcp.CallToolRequest, in) (struct{}, error) {
		var m map[string]int
		//lint:ignore SA5000 the panic is the point of this test
		m["x"]++
		return struct{}{}, nil
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("protocol error %v, want a tool error", err)
		}
		tc, _ := res.Content[0].(*mcp.TextContent)
		if !res.IsError || tc == nil || !strings.Contains(tc.Text, "internal error") || !strings.Contains(tc.Text, "still running") {
			t.Fatalf("panic: %+v", res)
		}
	}
}
