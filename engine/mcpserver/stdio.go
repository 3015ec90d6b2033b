package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// noBatchesSince is the first protocol version without JSON-RPC batches; the SDK
// ends the session on a batch from a client that negotiated it or a later one.
const noBatchesSince = "2025-06-18"

// Stdio is the transport of `spelunk mcp` over a pipe pair: the SDK's
// newline-delimited JSON transport behind a line filter. The SDK ends the session
// on the first line it cannot decode (not JSON, not UTF-8, `[]`, a line over its
// limit), so one bad line from a client would take every later request down with
// it. The filter answers such a line itself with a JSON-RPC error whose id is
// null (-32700 for a line that is not UTF-8 JSON, -32600 for JSON that is not a
// message) and passes only lines the SDK accepts. maxLine bounds one message.
func Stdio(in io.Reader, out io.Writer, maxLine int) mcp.Transport {
	w := &serialWriter{w: out}
	f := &lineFilter{r: bufio.NewReaderSize(in, 64<<10), w: w, max: maxLine}
	// The filter enforces the limit, and answers an over-long line instead of
	// ending the session as the SDK's own limit does.
	return &mcp.IOTransport{Reader: f, Writer: w, MaxLineLength: -1}
}

// serialWriter writes whole lines for the SDK and for the filter, one at a time,
// so an error answer never lands inside a response (the SDK writes each message
// with one Write). It also notes the negotiated protocol version from the
// initialize result, which decides whether a batch is acceptable.
type serialWriter struct {
	mu      sync.Mutex
	w       io.Writer
	version string
}

func (w *serialWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.version == "" && bytes.Contains(p, []byte(`"protocolVersion"`)) {
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(p, &r) == nil {
			w.version = r.Result.ProtocolVersion
		}
	}
	return w.w.Write(p)
}

// Close leaves the output open: stdout outlives the session, as with the SDK's
// own stdio transport.
func (w *serialWriter) Close() error { return nil }

func (w *serialWriter) negotiated() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.version
}

// lineFilter reads newline-delimited messages and hands on only those the SDK
// can decode; the others are answered on the spot.
type lineFilter struct {
	r       *bufio.Reader
	w       *serialWriter
	max     int
	buf     []byte
	pending []byte // a checked line (with its newline) not yet read by the SDK
	err     error  // the input's end, returned once pending is drained
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, tooLong, err := f.readLine()
		f.err = err
		line = bytes.TrimSpace(line)
		switch {
		case tooLong:
			err = f.answer(jsonrpc.CodeInvalidRequest, fmt.Sprintf("message over %d bytes: the limit is %d; send a smaller request", f.max, f.max))
		case len(line) == 0: // blank lines separate nothing; skip them
		default:
			if code, msg := f.check(line); code != 0 {
				err = f.answer(code, msg)
			} else {
				f.pending = append(line, '\n')
			}
		}
		if err != nil {
			return 0, fmt.Errorf("answer a malformed message: %w", err)
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// Close lets the SDK's Close through; a read blocked on stdin cannot be
// interrupted, and the process exits with the session anyway.
func (f *lineFilter) Close() error { return nil }

// readLine reads up to the next newline. A line over max is read to its end and
// dropped, reported by tooLong, so the next message starts clean.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	f.buf = f.buf[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong && len(f.buf)+len(chunk) > f.max+2 { // room for "\r\n"
			tooLong, f.buf = true, f.buf[:0]
		}
		if !tooLong {
			f.buf = append(f.buf, chunk...)
		}
		if err != bufio.ErrBufferFull {
			// The copy outlives the next ReadSlice, and pending is appended to.
			return bytes.Clone(f.buf), tooLong, err
		}
	}
}

// check returns the JSON-RPC error code and message for a line the SDK would
// refuse, or 0 for one it accepts: the SDK's own decoder decides.
func (f *lineFilter) check(line []byte) (int, string) {
	if !utf8.Valid(line) {
		return jsonrpc.CodeParseError, "parse error: the message is not valid UTF-8"
	}
	var raw json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return jsonrpc.CodeParseError, "parse error: the message is not JSON: " + err.Error()
	}
	switch line[0] {
	case '{':
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			return jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message: " + err.Error()
		}
		return 0, ""
	case '[':
		return f.checkBatch(line)
	}
	return jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is an object (or, before protocol " + noBatchesSince + ", an array of them)"
}

func (f *lineFilter) checkBatch(line []byte) (int, string) {
	if v := f.w.negotiated(); v >= noBatchesSince {
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: protocol %s has no batches; send one message per line", v)
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(line, &msgs); err != nil || len(msgs) == 0 {
		return jsonrpc.CodeInvalidRequest, "invalid request: an empty batch"
	}
	ids := map[jsonrpc.ID]bool{}
	for i, raw := range msgs {
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: batch element %d is not a JSON-RPC 2.0 message: %v", i, err)
		}
		r, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		// The SDK waits for an answer to every request of a batch before it
		// writes any, and a notification gets none: the batch would hang.
		if !r.ID.IsValid() {
			return jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: batch element %d is a notification; send notifications on a line of their own", i)
		}
		if ids[r.ID] {
			return jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: batch element %d repeats id %v", i, r.ID.Raw())
		}
		ids[r.ID] = true
	}
	return 0, ""
}

// answer writes a JSON-RPC error response with a null id: the id of a message
// that could not be read is unknown.
func (f *lineFilter) answer(code int, msg string) error {
	resp, err := json.Marshal(struct {
		JSONRPC string        `json:"jsonrpc"`
		ID      any           `json:"id"`
		Error   jsonrpc.Error `json:"error"`
	}{"2.0", nil, jsonrpc.Error{Code: int64(code), Message: msg}})
	if err != nil {
		return err
	}
	_, err = f.w.Write(append(resp, '\n'))
	return err
}
