package embed

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer is an OpenAI-compatible embeddings server for tests. Its vectors
// are the hashing embedder's, scaled by 3 (so the client must normalise).
type fakeServer struct {
	*httptest.Server
	dims     int
	requests atomic.Int32
	mu       sync.Mutex
	batches  []int    // inputs per request, in arrival order
	inputs   []string // every input received
	auth     []string // Authorization headers
	bodies   []map[string]any
	// respond, when set, may take over a request; it returns false to fall
	// through to the normal answer.
	respond func(w http.ResponseWriter, r *http.Request, n int32) bool
	reverse bool // list the data in reverse order (with indexes)
	base64  bool // return base64 embeddings
}

func newFakeServer(t *testing.T, dims int) *fakeServer {
	t.Helper()
	fs := &fakeServer{dims: dims}
	fs.Server = httptest.NewServer(http.HandlerFunc(fs.serve))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	n := fs.requests.Add(1)
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	var raw map[string]any
	body := make([]byte, 0, 1024)
	buf := make([]byte, 4096)
	for {
		k, err := r.Body.Read(buf)
		body = append(body, buf[:k]...)
		if err != nil {
			break
		}
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	json.Unmarshal(body, &raw)
	fs.mu.Lock()
	fs.batches = append(fs.batches, len(req.Input))
	fs.inputs = append(fs.inputs, req.Input...)
	fs.auth = append(fs.auth, r.Header.Get("Authorization"))
	fs.bodies = append(fs.bodies, raw)
	fs.mu.Unlock()
	if fs.respond != nil && fs.respond(w, r, n) {
		return
	}
	vecs, _ := NewHashing(fs.dims).Embed(r.Context(), req.Input)
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	var data []item
	for i, v := range vecs {
		scaled := make([]float32, len(v))
		for k := range v {
			scaled[k] = 3 * v[k]
		}
		var emb any = scaled
		if fs.base64 {
			b := make([]byte, 0, 4*len(v))
			for _, x := range scaled {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
			emb = base64.StdEncoding.EncodeToString(b)
		}
		data = append(data, item{"embedding", i, emb})
	}
	if fs.reverse {
		slices.Reverse(data)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}

// fastConfig is a client config for tests: tiny backoff, few retries.
func fastConfig(url string) OpenAIConfig {
	return OpenAIConfig{
		URL:         url,
		Model:       "test-model",
		APIKey:      "sk-test",
		MaxRetries:  3,
		BackoffBase: time.Millisecond,
		BackoffMax:  5 * time.Millisecond,
		Timeout:     5 * time.Second,
	}
}

func mustOpenAI(t *testing.T, cfg OpenAIConfig) *OpenAI {
	t.Helper()
	o, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	return o
}

func TestOpenAISuccess(t *testing.T) {
	for _, b64 := range []bool{false, true} {
		fs := newFakeServer(t, 8)
		fs.base64 = b64
		o := mustOpenAI(t, fastConfig(fs.URL))
		if o.Dims() != 0 {
			t.Errorf("Dims() before any request = %d, want 0 (unknown)", o.Dims())
		}
		texts := []string{"refund the buyer", "parse CSV", "", "bad\xffutf8"}
		got, err := o.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := NewHashing(8).Embed(context.Background(), []string{"refund the buyer", "parse CSV", " ", "bad\uFFFDutf8"})
		for i := range texts {
			if dot(got[i], want[i]) < 0.9999 {
				t.Errorf("base64=%v: vector %d = %v, want %v", b64, i, got[i], want[i])
			}
		}
		checkUnit(t, "openai", got, 8)
		if o.Dims() != 8 {
			t.Errorf("Dims() after a response = %d, want 8", o.Dims())
		}
		if fs.auth[0] != "Bearer sk-test" {
			t.Errorf("Authorization = %q, want %q", fs.auth[0], "Bearer sk-test")
		}
		if fs.bodies[0]["model"] != "test-model" {
			t.Errorf("request model = %v, want test-model", fs.bodies[0]["model"])
		}
		if fs.inputs[2] != " " {
			t.Errorf("empty input sent as %q, want a single space", fs.inputs[2])
		}
		if o.Name() != "openai:test-model" {
			t.Errorf("Name() = %q", o.Name())
		}
	}
}

func TestOpenAIURLs(t *testing.T) {
	tests := []struct {
		base, want string
	}{
		{"https://api.openai.com", "https://api.openai.com/v1/embeddings"},
		{"https://api.openai.com/", "https://api.openai.com/v1/embeddings"},
		{"https://api.openai.com/v1", "https://api.openai.com/v1/embeddings"},
		{"https://api.openai.com/v1/", "https://api.openai.com/v1/embeddings"},
		{"https://api.openai.com/v1/embeddings", "https://api.openai.com/v1/embeddings"},
		{"http://localhost:11434", "http://localhost:11434/v1/embeddings"},
		{"https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/embeddings"},
		{"http://proxy.local/llm", "http://proxy.local/llm/v1/embeddings"},
		{" http://127.0.0.1:8080 ", "http://127.0.0.1:8080/v1/embeddings"},
	}
	for _, tt := range tests {
		got, _, err := embeddingsURL(tt.base)
		if err != nil || got != tt.want {
			t.Errorf("embeddingsURL(%q) = %q, %v; want %q", tt.base, got, err, tt.want)
		}
	}
	for _, bad := range []string{"localhost:11434", "ftp://x", "http://", "://x", "%zz"} {
		if _, _, err := embeddingsURL(bad); err == nil {
			t.Errorf("embeddingsURL(%q) succeeded, want an error", bad)
		}
	}
	// All URL spellings reach the same endpoint of a real server.
	fs := newFakeServer(t, 4)
	for _, u := range []string{fs.URL, fs.URL + "/", fs.URL + "/v1", fs.URL + "/v1/embeddings"} {
		if _, err := mustOpenAI(t, fastConfig(u)).Embed(context.Background(), []string{"x"}); err != nil {
			t.Errorf("URL %q: %v", u, err)
		}
	}
}

func TestOpenAIBatching(t *testing.T) {
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = "text number " + strings.Repeat("x", i%13) + string(rune('a'+i%26))
	}
	want, _ := NewHashing(8).Embed(context.Background(), texts)
	for _, conc := range []int{1, 3} {
		fs := newFakeServer(t, 8)
		cfg := fastConfig(fs.URL)
		cfg.Concurrency = conc
		got, err := mustOpenAI(t, cfg).Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			if dot(got[i], want[i]) < 0.9999 {
				t.Fatalf("concurrency %d: vector %d does not match its text", conc, i)
			}
		}
		sizes := slices.Clone(fs.batches)
		slices.Sort(sizes)
		if !slices.Equal(sizes, []int{22, 64, 64}) {
			t.Errorf("concurrency %d: batch sizes = %v, want [22 64 64]", conc, sizes)
		}
	}
	// A custom batch size.
	fs := newFakeServer(t, 8)
	cfg := fastConfig(fs.URL)
	cfg.BatchSize = 100
	if _, err := mustOpenAI(t, cfg).Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fs.batches, []int{100, 50}) {
		t.Errorf("batch sizes = %v, want [100 50]", fs.batches)
	}
	// No texts: no request.
	if got, err := mustOpenAI(t, cfg).Embed(context.Background(), nil); err != nil || len(got) != 0 || fs.requests.Load() != 2 {
		t.Errorf("Embed(nil) = %v, %v after %d requests", got, err, fs.requests.Load())
	}
}

func TestOpenAIOutOfOrder(t *testing.T) {
	fs := newFakeServer(t, 8)
	fs.reverse = true
	texts := []string{"alpha", "beta", "gamma", "delta"}
	got, err := mustOpenAI(t, fastConfig(fs.URL)).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := NewHashing(8).Embed(context.Background(), texts)
	for i := range texts {
		if dot(got[i], want[i]) < 0.9999 {
			t.Errorf("vector %d is not %q's", i, texts[i])
		}
	}
}

func TestOpenAIRetries(t *testing.T) {
	tests := []struct {
		name         string
		fail         int // failing requests before success
		status       int
		retryAfter   string
		wantRequests int32
	}{
		{"429 then success", 1, http.StatusTooManyRequests, "0", 2},
		{"429 with Retry-After then success", 1, http.StatusTooManyRequests, "0.05", 2},
		{"503 twice then success", 2, http.StatusServiceUnavailable, "", 3},
		{"500 then success", 1, http.StatusInternalServerError, "", 2},
		{"408 then success", 1, http.StatusRequestTimeout, "", 2},
	}
	for _, tt := range tests {
		fs := newFakeServer(t, 8)
		fs.respond = func(w http.ResponseWriter, r *http.Request, n int32) bool {
			if int(n) > tt.fail {
				return false
			}
			if tt.retryAfter != "" {
				w.Header().Set("Retry-After", tt.retryAfter)
			}
			http.Error(w, `{"error":{"message":"slow down"}}`, tt.status)
			return true
		}
		start := time.Now()
		got, err := mustOpenAI(t, fastConfig(fs.URL)).Embed(context.Background(), []string{"x", "y"})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if len(got) != 2 || fs.requests.Load() != tt.wantRequests {
			t.Errorf("%s: %d vectors after %d requests, want 2 after %d", tt.name, len(got), fs.requests.Load(), tt.wantRequests)
		}
		if tt.retryAfter == "0.05" && time.Since(start) < 50*time.Millisecond {
			t.Errorf("%s: Retry-After not respected (%v)", tt.name, time.Since(start))
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	tests := []struct {
		name         string
		status       int
		body         string
		header       map[string]string
		wantMsg      string
		unavailable  bool
		wantRequests int32
	}{
		{"401", 401, `{"error":{"message":"Incorrect API key provided: sk-te***st"}}`, nil, "API key rejected by http", false, 1},
		{"403", 403, `{"error":"forbidden"}`, nil, "API key rejected by", false, 1},
		{"400", 400, `{"error":{"message":"input too long"}}`, nil, "HTTP 400: input too long", false, 1},
		{"404 text", 404, "no such route", nil, "HTTP 404: no such route", false, 1},
		{"500 forever", 500, `{"error":"boom"}`, nil, "HTTP 500: boom", true, 4},
		{"502 html", 502, "<html>bad gateway</html>", nil, "HTTP 502", true, 4},
		{"429 long Retry-After", 429, `{"error":{"message":"quota"}}`, map[string]string{"Retry-After": "3600"}, "retry after 1h0m0s", true, 1},
	}
	for _, tt := range tests {
		fs := newFakeServer(t, 8)
		fs.respond = func(w http.ResponseWriter, r *http.Request, n int32) bool {
			for k, v := range tt.header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(tt.status)
			w.Write([]byte(tt.body))
			return true
		}
		_, err := mustOpenAI(t, fastConfig(fs.URL)).Embed(context.Background(), []string{"x"})
		if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.wantMsg)
		}
		if got := errors.Is(err, ErrUnavailable); got != tt.unavailable {
			t.Errorf("%s: errors.Is(err, ErrUnavailable) = %v, want %v", tt.name, got, tt.unavailable)
		}
		if n := fs.requests.Load(); n != tt.wantRequests {
			t.Errorf("%s: %d requests, want %d", tt.name, n, tt.wantRequests)
		}
		if strings.Contains(err.Error(), "sk-test") {
			t.Errorf("%s: error leaks the API key: %v", tt.name, err)
		}
	}
}

func TestOpenAIBadResponses(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"not json", "hello", "bad response"},
		{"too few", `{"data":[{"index":0,"embedding":[1,0]}]}`, "1 embeddings for 2 inputs"},
		{"duplicate index", `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`, "repeated"},
		{"index out of range", `{"data":[{"index":0,"embedding":[1,0]},{"index":5,"embedding":[0,1]}]}`, "out of range"},
		{"zero vector", `{"data":[{"index":0,"embedding":[0,0]},{"index":1,"embedding":[0,1]}]}`, "zero"},
		{"ragged", `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1,1]}]}`, "dims mismatch"},
		{"empty vector", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[0,1]}]}`, "empty embedding"},
		{"bad base64", `{"data":[{"index":0,"embedding":"!!"},{"index":1,"embedding":[0,1]}]}`, "base64"},
	}
	for _, tt := range tests {
		fs := newFakeServer(t, 2)
		fs.respond = func(w http.ResponseWriter, r *http.Request, n int32) bool {
			w.Write([]byte(tt.body))
			return true
		}
		_, err := mustOpenAI(t, fastConfig(fs.URL)).Embed(context.Background(), []string{"a", "b"})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
		if errors.Is(err, ErrUnavailable) || fs.requests.Load() != 1 {
			t.Errorf("%s: a bad response must fail at once, not as unavailable (err %v, %d requests)", tt.name, err, fs.requests.Load())
		}
	}
	// Missing indexes fall back to position.
	fs := newFakeServer(t, 2)
	fs.respond = func(w http.ResponseWriter, r *http.Request, n int32) bool {
		w.Write([]byte(`{"data":[{"embedding":[3,0]},{"embedding":[0,2]}]}`))
		return true
	}
	got, err := mustOpenAI(t, fastConfig(fs.URL)).Embed(context.Background(), []string{"a", "b"})
	if err != nil || !slices.Equal(got[0], []float32{1, 0}) || !slices.Equal(got[1], []float32{0, 1}) {
		t.Errorf("no indexes: got %v, %v", got, err)
	}
}

func TestOpenAIWrongDims(t *testing.T) {
	fs := newFakeServer(t, 8)
	cfg := fastConfig(fs.URL)
	cfg.Dims = 16
	o := mustOpenAI(t, cfg)
	if o.Dims() != 16 {
		t.Errorf("Dims() = %d, want the configured 16", o.Dims())
	}
	_, err := o.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "returned 8-dimensional vectors, configured dims is 16") {
		t.Errorf("err = %v, want a dims mismatch naming 8 and 16", err)
	}
	// Learned dims are enforced on later calls too.
	fs2 := newFakeServer(t, 8)
	o2 := mustOpenAI(t, fastConfig(fs2.URL))
	if _, err := o2.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	fs2.dims = 4
	if _, err := o2.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "dims mismatch") {
		t.Errorf("after the model changed size: err = %v, want dims mismatch", err)
	}
}

func TestOpenAIRequestDims(t *testing.T) {
	fs := newFakeServer(t, 8)
	cfg := fastConfig(fs.URL)
	cfg.Dims, cfg.RequestDims = 8, true
	o := mustOpenAI(t, cfg)
	if _, err := o.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := fs.bodies[0]["dimensions"]; got != float64(8) {
		t.Errorf("request dimensions = %v, want 8", got)
	}
	if o.Name() != "openai:test-model@8" {
		t.Errorf("Name() = %q, want openai:test-model@8", o.Name())
	}
}

func TestOpenAIServerDown(t *testing.T) {
	fs := newFakeServer(t, 8)
	url := fs.URL
	fs.Close()
	start := time.Now()
	_, err := mustOpenAI(t, fastConfig(url)).Embed(context.Background(), []string{"x"})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v, want ErrUnavailable", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %v to give up", time.Since(start))
	}
}

func TestOpenAITimeout(t *testing.T) {
	fs := newFakeServer(t, 8)
	fs.respond = func(w http.ResponseWriter, r *http.Request, n int32) bool {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
		return true
	}
	cfg := fastConfig(fs.URL)
	cfg.Timeout = 30 * time.Millisecond
	cfg.MaxRetries = 1
	start := time.Now()
	_, err := mustOpenAI(t, cfg).Embed(context.Background(), []string{"x"})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want ErrUnavailable wrapping a deadline", err)
	}
	if n := fs.requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2 (one retry)", n)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

func TestOpenAIContextCancel(t *testing.T) {
	fs := newFakeServer(t, 8)
	fs.respond = func(w http.ResponseWriter, r *http.Request, n int32) bool {
		<-r.Context().Done()
		return true
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := mustOpenAI(t, fastConfig(fs.URL)).Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if errors.Is(err, ErrUnavailable) {
		t.Errorf("a canceled call is not an unavailable backend: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancel took %v to take effect", d)
	}
	if n := fs.requests.Load(); n != 1 {
		t.Errorf("%d requests after cancel, want 1", n)
	}

	// Cancel during a backoff wait.
	fs2 := newFakeServer(t, 8)
	fs2.respond = func(w http.ResponseWriter, r *http.Request, n int32) bool {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(503)
		return true
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel2)
	start = time.Now()
	_, err = mustOpenAI(t, fastConfig(fs2.URL)).Embed(ctx2, []string{"x"})
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("cancel during backoff: err = %v after %v", err, time.Since(start))
	}

	// A deadline shorter than the Retry-After fails fast as unavailable.
	ctx3, cancel3 := context.WithTimeout(context.Background(), time.Second)
	defer cancel3()
	start = time.Now()
	_, err = mustOpenAI(t, fastConfig(fs2.URL)).Embed(ctx3, []string{"x"})
	if !errors.Is(err, ErrUnavailable) || time.Since(start) > 500*time.Millisecond {
		t.Errorf("deadline before Retry-After: err = %v after %v", err, time.Since(start))
	}
}

func TestOpenAITruncatesLongInputs(t *testing.T) {
	fs := newFakeServer(t, 8)
	cfg := fastConfig(fs.URL)
	cfg.MaxInputBytes = 10
	if _, err := mustOpenAI(t, cfg).Embed(context.Background(), []string{"ééééééé", "short"}); err != nil {
		t.Fatal(err)
	}
	if got := fs.inputs[0]; got != "ééééé" {
		t.Errorf("truncated input = %q, want %q (cut at a rune boundary)", got, "ééééé")
	}
	if fs.inputs[1] != "short" {
		t.Errorf("short input changed to %q", fs.inputs[1])
	}
}

func TestOpenAIKeys(t *testing.T) {
	fs := newFakeServer(t, 4)
	tests := []struct {
		name, cfgKey, spelunkEnv, openaiEnv, want string
	}{
		{"config key", "k1", "k2", "k3", "Bearer k1"},
		{"SPELUNK_EMBED_API_KEY", "", "k2", "k3", "Bearer k2"},
		// An OpenAI key is never sent to another host.
		{"OPENAI_API_KEY not sent elsewhere", "", "", "k3", ""},
		{"no key", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Setenv("SPELUNK_EMBED_API_KEY", tt.spelunkEnv)
		t.Setenv("OPENAI_API_KEY", tt.openaiEnv)
		cfg := fastConfig(fs.URL)
		cfg.APIKey = tt.cfgKey
		if _, err := mustOpenAI(t, cfg).Embed(context.Background(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
		fs.mu.Lock()
		got := fs.auth[len(fs.auth)-1]
		fs.mu.Unlock()
		if got != tt.want {
			t.Errorf("%s: Authorization = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestNewOpenAIConfig(t *testing.T) {
	t.Setenv("SPELUNK_EMBED_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	tests := []struct {
		name     string
		cfg      OpenAIConfig
		wantErr  string
		wantName string
		wantDims int
	}{
		{"openai needs a key", OpenAIConfig{}, "no API key", "", 0},
		{"openai defaults", OpenAIConfig{APIKey: "k"}, "", "openai:text-embedding-3-small", 1536},
		{"openai large", OpenAIConfig{APIKey: "k", Model: "text-embedding-3-large"}, "", "openai:text-embedding-3-large", 3072},
		{"openai shortened", OpenAIConfig{APIKey: "k", Dims: 256, RequestDims: true}, "", "openai:text-embedding-3-small@256", 256},
		{"request dims without dims", OpenAIConfig{APIKey: "k", RequestDims: true}, "RequestDims needs Dims", "", 0},
		{"local needs a model", OpenAIConfig{URL: "http://localhost:11434"}, "no model name", "", 0},
		{"local", OpenAIConfig{URL: "http://localhost:11434", Model: "nomic-embed-text"}, "", "openai:nomic-embed-text", 0},
		{"bad url", OpenAIConfig{URL: "localhost:11434", Model: "m"}, "bad URL", "", 0},
		{"negative dims", OpenAIConfig{URL: "http://h", Model: "m", Dims: -1}, "negative dims", "", 0},
	}
	for _, tt := range tests {
		o, err := NewOpenAI(tt.cfg)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if o.Name() != tt.wantName || o.Dims() != tt.wantDims {
			t.Errorf("%s: Name %q, Dims %d; want %q, %d", tt.name, o.Name(), o.Dims(), tt.wantName, tt.wantDims)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-3", 0},
		{"2", 2 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{"Thu, 02 Jan 2025 03:04:15 GMT", 10 * time.Second},
		{"Thu, 02 Jan 2025 03:04:00 GMT", 0}, // in the past
		{"soon", 0},
		{"NaN", 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestOpenAIBackoffBounds(t *testing.T) {
	o := mustOpenAI(t, OpenAIConfig{URL: "http://h", Model: "m", BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second})
	for attempt := range 40 {
		d := o.backoff(attempt)
		ceil := min(100*time.Millisecond<<min(attempt, 30), time.Second)
		if d < ceil/2 || d > ceil {
			t.Errorf("backoff(%d) = %v, want in [%v, %v]", attempt, d, ceil/2, ceil)
		}
	}
}
