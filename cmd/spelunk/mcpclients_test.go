package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientSnippet is one agent's configuration of docs/mcp-clients: the command
// line it starts spelunk mcp with.
type clientSnippet struct {
	file, command string
	args          []string
}

// readSnippets parses every snippet: the JSON ones under their agent's key
// (mcpServers, servers, context_servers), the Codex TOML table by its two keys.
func readSnippets(t *testing.T) []clientSnippet {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "..", "docs", "mcp-clients")
	files, err := filepath.Glob(filepath.Join(dir, "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []clientSnippet
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		switch {
		case strings.HasSuffix(name, ".json"):
			var doc map[string]map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatalf("%s: not valid JSON: %v", name, err)
			}
			if len(doc) != 1 || len(doc[firstKey(doc)]) != 1 {
				t.Fatalf("%s: want one server under one key: %s", name, raw)
			}
			s := doc[firstKey(doc)]["spelunk"]
			out = append(out, clientSnippet{name, s.Command, s.Args})
		case strings.HasSuffix(name, ".toml"):
			out = append(out, codexSnippet(t, name, string(raw)))
		}
	}
	if len(out) != 5 {
		t.Fatalf("%d snippets in %s, want 5 (Claude Code, Cursor, VS Code, Codex CLI, Zed)", len(out), dir)
	}
	return out
}

func firstKey[V any](m map[string]V) string {
	for k := range m {
		return k
	}
	return ""
}

// codexSnippet reads [mcp_servers.spelunk] with command and args (a TOML array
// of basic strings is also a JSON array).
func codexSnippet(t *testing.T, name, src string) clientSnippet {
	t.Helper()
	if !strings.Contains(src, "[mcp_servers.spelunk]\n") {
		t.Fatalf("%s: no [mcp_servers.spelunk] table", name)
	}
	cmd := regexp.MustCompile(`(?m)^command = "([^"]+)"$`).FindStringSubmatch(src)
	args := regexp.MustCompile(`(?m)^args = (\[.*\])$`).FindStringSubmatch(src)
	s := clientSnippet{file: name}
	if cmd == nil || args == nil || json.Unmarshal([]byte(args[1]), &s.args) != nil {
		t.Fatalf("%s: want command = \"...\" and args = [...]: %s", name, src)
	}
	s.command = cmd[1]
	return s
}

// TestMCPClientSnippets (issue 38): every agent's setup snippet parses, and its
// command line starts a server an MCP client can use.
func TestMCPClientSnippets(t *testing.T) {
	f := newMCPFixture(t)
	for _, s := range readSnippets(t) {
		t.Run(s.file, func(t *testing.T) {
			if s.command != "spelunk" || len(s.args) == 0 || s.args[0] != "mcp" {
				t.Fatalf("command %q %v, want spelunk mcp ...", s.command, s.args)
			}
			args := make([]string, len(s.args))
			for i, a := range s.args {
				args[i] = strings.NewReplacer("/path/to/repo", f.repo, "${workspaceFolder}", f.repo).Replace(a)
			}
			cmd := exec.Command(f.bin, args...)
			cmd.Env = append(os.Environ(), "SPELUNK_EMBEDDER=hash", "SPELUNK_DATABASE_URL="+f.url)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "snippet-test", Version: "1"}, nil).
				Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("start %v: %v", args, err)
			}
			defer cs.Close()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_symbols", Arguments: map[string]any{"query": "Cart"}})
			if err != nil || res.IsError {
				t.Fatalf("search_symbols through %s: %v %+v", s.file, err, res)
			}
		})
	}
}
