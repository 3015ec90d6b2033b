package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// buildSpelunk builds the real binary into a temp dir. Until main.go registers
// newMCPCmd, the build overlays a copy of main.go that does (go build -overlay),
// so the binary tested is the real one either way and main.go is never edited.
func buildSpelunk(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "spelunk")
	_, file, _, _ := runtime.Caller(0)
	pkg := filepath.Dir(file)
	args := []string{"build", "-o", bin}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = pkg
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// mcpFixture is a built binary, a database and an indexed fixture repository.
type mcpFixture struct {
	bin, url, repo string
}

func newMCPFixture(t testing.TB) mcpFixture {
	t.Helper()
	f := mcpFixture{bin: buildSpelunk(t), url: pgtest.URL(t), repo: indextest.Repo(t)}
	cmd := exec.Command(f.bin, "index", f.repo, "--db", f.url)
	cmd.Env = append(os.Environ(), "SPELUNK_EMBEDDER=hash")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("spelunk index: %v\n%s", err, out)
	}
	return f
}

func (f mcpFixture) command(args ...string) *exec.Cmd {
	cmd := exec.Command(f.bin, append([]string{"mcp", "--repo", f.repo, "--db", f.url}, args...)...)
	cmd.Env = append(os.Environ(), "SPELUNK_EMBEDDER=hash")
	return cmd
}

// stdioSession starts `spelunk mcp` and does the initialize handshake over stdio.
func (f mcpFixture) stdioSession(t testing.TB) *mcp.ClientSession {
	t.Helper()
	cmd := f.command()
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestMCPStdio(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.stdioSession(t)
	ctx := context.Background()
	if got := cs.InitializeResult().ServerInfo.Name; got != "spelunk" {
		t.Errorf("server name %q", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 15 {
		t.Errorf("%d tools over stdio, want 15 (resolve_conflict only with --allow-resolve)", len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "IsEligibleForRefund", "limit": 3}})
	if err != nil || res.IsError {
		t.Fatalf("search_code: %v %+v", err, res)
	}
	var raw []byte
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			raw = []byte(tc.Text)
		}
	}
	var out struct {
		Results []struct {
			Name  string `json:"name"`
			Lines string `json:"lines"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Results) == 0 || !strings.HasSuffix(out.Results[0].Name, "IsEligibleForRefund") {
		t.Fatalf("search_code over stdio: %v %s", err, raw)
	}
	if !strings.HasPrefix(out.Results[0].Lines, "billing/refund.go:") {
		t.Errorf("lines %q", out.Results[0].Lines)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_symbol", Arguments: map[string]any{"path": "../../etc/passwd", "start_line": 1}})
	if err != nil || !res.IsError {
		t.Fatalf("traversal over stdio: %v %+v", err, res)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "resolve_conflict", Arguments: map[string]any{"conflict_id": "x", "action": "both"}})
	if err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("resolve without --allow-resolve: %v, want an unknown tool (not listed)", err)
	}
}

// TestMCPStdioMalformedLines: the real binary answers each malformed line with a
// JSON-RPC error (id null) and goes on serving the lines after it.
func TestMCPStdioMalformedLines(t *testing.T) {
	f := newMCPFixture(t)
	cmd := f.command()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	exchange := func(line string) (reply struct {
		ID     json.RawMessage     `json:"id"`
		Result json.RawMessage     `json:"result"`
		Error  *struct{ Code int } `json:"error"`
	}) {
		t.Helper()
		if _, err := fmt.Fprintf(stdin, "%s\n", line); err != nil {
			t.Fatalf("send %.30q: %v", line, err)
		}
		if !sc.Scan() {
			t.Fatalf("after %.30q: the server closed stdout (%v)", line, sc.Err())
		}
		if err := json.Unmarshal(sc.Bytes(), &reply); err != nil {
			t.Fatalf("after %.30q: reply %q: %v", line, sc.Text(), err)
		}
		return reply
	}
	exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, c := range []struct {
		line string
		code int
	}{{"not json", -32700}, {"[]", -32600}, {"\xff\xfe invalid UTF-8", -32700}} {
		if r := exchange(c.line); r.Error == nil || r.Error.Code != c.code || string(r.ID) != "null" {
			t.Errorf("%q: reply id %s error %+v, want code %d and id null", c.line, r.ID, r.Error, c.code)
		}
		if r := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); r.Error != nil || !strings.Contains(string(r.Result), "search_code") {
			t.Fatalf("tools/list after %q: %+v %s", c.line, r.Error, r.Result)
		}
	}
	r := exchange(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_code","arguments":{"query":"IsEligibleForRefund"}}}`)
	if r.Error != nil || !strings.Contains(string(r.Result), "billing/refund.go") || strings.Contains(string(r.Result), `"isError":true`) {
		t.Fatalf("tools/call after malformed lines: %+v %s", r.Error, r.Result)
	}
}

// TestMCPPrintToolHashes: the binary prints the pinned hashes.
func TestMCPPrintToolHashes(t *testing.T) {
	bin := buildSpelunk(t)
	out, err := exec.Command(bin, "mcp", "--print-tool-hashes").Output()
	if err != nil {
		t.Fatal(err)
	}
	_, file, _, _ := runtime.Caller(0)
	want, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", "mcp", "tool-hashes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(want) {
		t.Errorf("--print-tool-hashes differs from testdata/mcp/tool-hashes.txt:\n%s", out)
	}
}

func TestMCPHTTP(t *testing.T) {
	f := newMCPFixture(t)
	endpoint := f.httpEndpoint(t)
	if !strings.HasSuffix(endpoint, "/mcp") {
		t.Errorf("endpoint %s, want the documented path /mcp", endpoint)
	}
	// A web page on another origin is refused (issue 38).
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Origin: %v %v, want 403", err, resp)
	} else {
		resp.Body.Close()
	}
	cs := httpSession(t, endpoint)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_symbols", Arguments: map[string]any{"query": "Cart"}})
	if err != nil || res.IsError {
		t.Fatalf("search_symbols over HTTP: %v %+v", err, res)
	}
}

// httpEndpoint starts spelunk mcp --http on a free loopback port and returns
// the endpoint its serving line names.
func (f mcpFixture) httpEndpoint(t *testing.T) string {
	t.Helper()
	cmd := f.command("--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "serving "); ok {
				addr <- strings.Fields(rest)[0]
			}
		}
	}()
	select {
	case endpoint := <-addr:
		return endpoint
	case <-time.After(30 * time.Second):
		t.Fatal("no serving line on stderr")
	}
	return ""
}

// httpSession connects the SDK's client to a streamable HTTP endpoint.
func httpSession(t *testing.T, endpoint string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestMCPRefusesNonLoopback(t *testing.T) {
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true}, {"[::1]:8080", true}, {"localhost:0", true}, {"127.0.0.2:1", true},
		{"0.0.0.0:8080", false}, {":8080", false}, {"[::]:8080", false}, {"192.168.1.10:8080", false},
		{"example.com:80", false}, {"127.0.0.1", false}, {"127.0.0.1:", false},
	} {
		if err := loopbackAddr(c.addr); (err == nil) != c.ok {
			t.Errorf("loopbackAddr(%q) = %v, want ok=%v", c.addr, err, c.ok)
		}
	}
	cmd := newMCPCmd(&globals{})
	cmd.SetArgs([]string{"--http", "0.0.0.0:8080"})
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	err := cmd.ExecuteContext(context.Background())
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("--http 0.0.0.0:8080: %v, want a usage error about loopback", err)
	}
}

// BenchmarkMCPSearchCodeStdio measures search_code end to end over stdio: the
// real binary, JSON-RPC framing, the engine and Postgres. It reports p50 and p95.
// The 50k-chunk target is measured on the engine side by engine/benchmarks; this
// runs on the fixture.
func BenchmarkMCPSearchCodeStdio(b *testing.B) {
	f := newMCPFixture(b)
	benchSearchStdio(b, f.stdioSession(b), fixtureQueries)
}

// fixtureQueries are names and questions of testdata/fixture.
var fixtureQueries = []string{"IsEligibleForRefund", "Cart.Add", "how are refunds issued", "retry with backoff",
	"TotalCents", "discount applied to the cart", "export invoices to csv", "PaymentProvider"}

// benchSearchStdio calls search_code b.N times over cs and reports p50 and p95.
func benchSearchStdio(b *testing.B, cs *mcp.ClientSession, queries []string) {
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": queries[i%len(queries)]}})
		if err != nil || res.IsError {
			b.Fatalf("search_code: %v %+v", err, res)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "search_code over stdio: n=%d p50=%.2fms p95=%.2fms\n", len(lat), pct(0.5), pct(0.95))
	}
}
