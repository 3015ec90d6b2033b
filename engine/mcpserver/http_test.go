package mcpserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// httpInit posts an initialize to url with origin ("" = none) and returns the
// status and the session id.
func httpInit(t testing.TB, url, origin string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

func sessions(s *mcpserver.Server) int {
	n := 0
	for range s.MCP().Sessions() {
		n++
	}
	return n
}

// TestHTTPOrigin (issue 38): a page on a foreign origin cannot drive the server;
// no Origin (any non-browser client), loopback origins and allowed ones can.
func TestHTTPOrigin(t *testing.T) {
	srv := mcpserver.New(mcpserver.Config{})
	ts := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{AllowedOrigins: []string{"https://app.example"}}))
	defer ts.Close()
	for origin, want := range map[string]int{
		"": 200, "http://localhost:3000": 200, "http://127.0.0.1:5173": 200, "https://[::1]": 200, "https://app.example": 200,
		"http://evil.example": 403, "null": 403, "http://localhost.evil.example": 403, "https://app.example:444": 403,
		"http://192.168.1.5:8080": 403, "file://": 403,
	} {
		if got, _ := httpInit(t, ts.URL+mcpserver.EndpointPath, origin); got != want {
			t.Errorf("Origin %q: status %d, want %d", origin, got, want)
		}
	}
	// Only the documented path is served.
	for _, p := range []string{"/", "/mcp/", "/sse", "/anything"} {
		if got, _ := httpInit(t, ts.URL+p, ""); got != http.StatusNotFound {
			t.Errorf("path %s: status %d, want 404", p, got)
		}
	}
	// A real client works on it.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + mcpserver.EndpointPath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.ListTools(context.Background(), nil); err != nil || len(res.Tools) == 0 {
		t.Errorf("tools/list over HTTP: %v", err)
	}
}

// TestHTTPSessionsBounded (issue 38: 22,000 initialize calls took the server from
// 69 to 250 MB): sessions past MaxSessions close the oldest, and idle ones expire,
// so the live sessions and the heap stay bounded however many initialize.
func TestHTTPSessionsBounded(t *testing.T) {
	const n, maxSessions = 2000, 16
	srv := mcpserver.New(mcpserver.Config{})
	ts := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{MaxSessions: maxSessions, SessionIdle: 500 * time.Millisecond}))
	defer ts.Close()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	before := heap()
	for i := range n {
		if code, id := httpInit(t, ts.URL+mcpserver.EndpointPath, ""); code != 200 || id == "" {
			t.Fatalf("initialize %d: status %d, session %q", i, code, id)
		}
		if got := sessions(srv); got > maxSessions {
			t.Fatalf("after %d initialize calls: %d live sessions, want at most %d", i+1, got, maxSessions)
		}
	}
	after := heap()
	t.Logf("%d initialize calls: %d live sessions, heap in use %.1f MB before, %.1f MB after", n, sessions(srv),
		float64(before)/1e6, float64(after)/1e6)
	if after > before+32<<20 {
		t.Errorf("heap grew by %.1f MB over %d initialize calls", float64(after-before)/1e6, n)
	}
	deadline := time.Now().Add(10 * time.Second)
	for sessions(srv) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := sessions(srv); got != 0 {
		t.Errorf("%d sessions still live after the idle timeout", got)
	}
}
