package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// rawSession is a client speaking raw lines to a server over an in-process pipe
// pair, as an agent does over stdio.
type rawSession struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
}

func newRawSession(t *testing.T, srv *mcpserver.Server, maxLine int) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Run(ctx, mcpserver.Stdio(inR, outW, maxLine))
		outW.Close()
	}()
	s := &rawSession{t: t, in: inW, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close(); <-done })
	return s
}

// send writes one line; a pipe write blocks until the server reads it.
func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("send %.40q: %v (the server stopped reading)", line, err)
	}
}

// rpcReply is a JSON-RPC response as read off the wire.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// reply reads the next line the server writes.
func (s *rawSession) reply(what string) rpcReply {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("%s: the server closed the session", what)
		}
		var r rpcReply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			s.t.Fatalf("%s: reply %q is not JSON: %v", what, l, err)
		}
		return r
	case <-time.After(30 * time.Second):
		s.t.Fatalf("%s: no reply in 30 s", what)
	}
	return rpcReply{}
}

// wantError reads a reply that must be a JSON-RPC error with a null id.
func (s *rawSession) wantError(what string, code int, msg string) {
	s.t.Helper()
	r := s.reply(what)
	if r.Error == nil || r.Error.Code != code || string(r.ID) != "null" || !strings.Contains(r.Error.Message, msg) {
		s.t.Errorf("%s: reply id %s error %+v, want code %d with id null and %q", what, r.ID, r.Error, code, msg)
	}
}

// wantResult reads a reply that must be the result of request id.
func (s *rawSession) wantResult(what, id string) json.RawMessage {
	s.t.Helper()
	r := s.reply(what)
	if r.Error != nil || string(r.ID) != id {
		s.t.Fatalf("%s: reply id %s error %+v, want the result of id %s", what, r.ID, r.Error, id)
	}
	return r.Result
}

const (
	initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	initDone = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// TestStdioSurvivesMalformedLines: each malformed line gets a JSON-RPC error with
// a null id, and the requests after it are still served.
func TestStdioSurvivesMalformedLines(t *testing.T) {
	e := newEnv(t, false)
	s := newRawSession(t, e.srv, 4096)
	s.send(initLine)
	s.wantResult("initialize", "1")
	s.send(initDone)
	bad := []struct {
		what, line string
		code       int
		msg        string
	}{
		{"not json", `not json`, -32700, "not JSON"},
		{"invalid UTF-8", "\xff\xfe\xfd", -32700, "UTF-8"},
		{"invalid UTF-8 in a string", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"` + "\xff" + `"}}`, -32700, "UTF-8"},
		{"two values", `{"jsonrpc":"2.0","id":8,"method":"ping"} {}`, -32700, "not JSON"},
		{"truncated", `{"jsonrpc":"2.0","id":9,"method":`, -32700, "not JSON"},
		{"empty batch", `[]`, -32600, "batch"},
		{"a batch under 2025-06-18", `[{"jsonrpc":"2.0","id":10,"method":"ping"}]`, -32600, "no batches"},
		{"a number", `42`, -32600, "object"},
		{"no version", `{"id":11,"method":"ping"}`, -32600, "JSON-RPC 2.0"},
		{"an empty object", `{}`, -32600, "JSON-RPC 2.0"},
		{"too long", `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`, -32600, "limit is 4096"},
	}
	for i, b := range bad {
		s.send(b.line)
		s.wantError(b.what, b.code, b.msg)
		// The session still answers, every time.
		id := itoa(100 + i)
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		var list struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if err := json.Unmarshal(s.wantResult("tools/list after "+b.what, id), &list); err != nil || len(list.Tools) != len(allTools) {
			t.Fatalf("tools/list after %s: %d tools, %v", b.what, len(list.Tools), err)
		}
	}
	s.send("")
	s.send("   \r")
	s.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"search_code","arguments":{"query":"IsEligibleForRefund","limit":1}}}`)
	var res struct {
		IsError bool                    `json:"isError"`
		Content []struct{ Text string } `json:"content"`
	}
	var out struct {
		Results []struct{ Name string } `json:"results"`
	}
	if err := json.Unmarshal(s.wantResult("tools/call after blank lines", `"call"`), &res); err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("tools/call: %+v %v", res, err)
	}
	if err := json.Unmarshal([]byte(res.Content[0].Text), &out); err != nil || len(out.Results) != 1 || !strings.HasSuffix(out.Results[0].Name, "IsEligibleForRefund") {
		t.Fatalf("tools/call: %+v %v", out, err)
	}
}

// TestStdioBatchBeforeBatchlessProtocol: a client on 2025-03-26 may batch; the
// filter lets a good batch through and refuses one the SDK would hang on.
func TestStdioBatchBeforeBatchlessProtocol(t *testing.T) {
	s := newRawSession(t, mcpserver.New(mcpserver.Config{}), 4096)
	s.send(strings.Replace(initLine, "2025-06-18", "2025-03-26", 1))
	s.wantResult("initialize", "1")
	s.send(initDone)
	s.send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
	s.wantError("a batch with a notification", -32600, "notification")
	s.send(`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	s.wantError("a batch repeating an id", -32600, "repeats id")
	s.send(`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`)
	select {
	case l := <-s.lines:
		var rs []rpcReply
		if err := json.Unmarshal([]byte(l), &rs); err != nil || len(rs) != 2 {
			t.Fatalf("batch reply %q: %v", l, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no reply to a good batch")
	}
	s.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	s.wantResult("ping after the batches", "6")
}
