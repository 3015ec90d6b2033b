package embed

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
)

// OpenAI defaults.
const (
	DefaultOpenAIURL   = "https://api.openai.com"
	DefaultOpenAIModel = "text-embedding-3-small"
	defaultBatchSize   = 64
	defaultMaxRetries  = 4
	defaultTimeout     = 60 * time.Second
	defaultBackoffBase = 500 * time.Millisecond
	defaultBackoffMax  = 20 * time.Second
	defaultMaxInput    = 16 << 10
	// maxRetryAfter is the longest Retry-After the provider waits out; a
	// server asking for more is treated as unavailable, so callers can mark
	// rows pending instead of blocking.
	maxRetryAfter = 60 * time.Second
)

// knownDims are the output sizes of well-known models, used when Dims is not
// configured so that Dims() is right before the first request.
var knownDims = map[string]int{
	"text-embedding-3-small": 1536,
	"text-embedding-3-large": 3072,
	"text-embedding-ada-002": 1536,
}

// OpenAIConfig configures [NewOpenAI]. Zero values mean the defaults.
type OpenAIConfig struct {
	// URL is the server's base URL, with or without "/v1" (a full
	// ".../embeddings" URL is accepted too). Default https://api.openai.com.
	URL string
	// APIKey is sent as a bearer token. When empty, $SPELUNK_EMBED_API_KEY is
	// used, and for api.openai.com only, $OPENAI_API_KEY (an OpenAI key is
	// never sent to another host). Local servers usually need none.
	APIKey string
	// Model is the model name; required except for api.openai.com, where it
	// defaults to text-embedding-3-small.
	Model string
	// Dims is the expected vector length. 0 means the known size of the model,
	// else whatever the first response returns. A response of any other
	// length is an error.
	Dims int
	// RequestDims sends Dims as the "dimensions" request parameter, for
	// models that can shorten their output (OpenAI's text-embedding-3-*).
	RequestDims bool
	// BatchSize is the number of inputs per request (default 64).
	BatchSize int
	// Concurrency is the number of requests in flight (default 1).
	Concurrency int
	// MaxRetries bounds the retries after a 408, 429, 5xx or network error
	// (default 4; negative for none).
	MaxRetries int
	// Timeout bounds each HTTP request (default 60s).
	Timeout time.Duration
	// BackoffBase and BackoffMax shape the exponential backoff with jitter
	// between retries (defaults 500ms and 20s).
	BackoffBase, BackoffMax time.Duration
	// MaxInputBytes truncates longer inputs (at a rune boundary) so one huge
	// chunk cannot fail a batch on the model's context limit (default 16 KiB;
	// negative for no limit).
	MaxInputBytes int
	// HTTPClient defaults to a client with no overall timeout (Timeout
	// applies per request).
	HTTPClient *http.Client
}

// OpenAI embeds through an OpenAI-compatible POST /v1/embeddings endpoint:
// OpenAI, OpenRouter, Ollama, llama.cpp server, vLLM, TEI, LM Studio.
type OpenAI struct {
	cfg      OpenAIConfig
	endpoint string
	name     string
	client   *http.Client
	dims     atomic.Int64 // configured, known or learned; 0 until known
}

// NewOpenAI validates cfg and returns the provider. It makes no request.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.URL == "" {
		cfg.URL = DefaultOpenAIURL
	}
	endpoint, host, err := embeddingsURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("embedder openai: %w", err)
	}
	isOpenAI := host == "api.openai.com"
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("SPELUNK_EMBED_API_KEY")
	}
	if cfg.APIKey == "" && isOpenAI {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	if cfg.APIKey == "" && isOpenAI {
		return nil, errors.New("embedder openai: no API key for api.openai.com (set SPELUNK_EMBED_API_KEY or OPENAI_API_KEY)")
	}
	if cfg.Model == "" {
		if !isOpenAI {
			return nil, fmt.Errorf("embedder openai: no model name for %s", cfg.URL)
		}
		cfg.Model = DefaultOpenAIModel
	}
	if cfg.Dims < 0 {
		return nil, fmt.Errorf("embedder openai: negative dims %d", cfg.Dims)
	}
	if cfg.RequestDims && cfg.Dims == 0 {
		return nil, errors.New("embedder openai: RequestDims needs Dims")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = defaultBatchSize
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = defaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = defaultBackoffBase
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = defaultBackoffMax
	}
	if cfg.MaxInputBytes == 0 {
		cfg.MaxInputBytes = defaultMaxInput
	}
	o := &OpenAI{cfg: cfg, endpoint: endpoint, client: cfg.HTTPClient, name: "openai:" + cfg.Model}
	if o.client == nil {
		o.client = &http.Client{}
	}
	if cfg.RequestDims {
		o.name += fmt.Sprintf("@%d", cfg.Dims)
	}
	switch {
	case cfg.Dims > 0:
		o.dims.Store(int64(cfg.Dims))
	case knownDims[cfg.Model] > 0:
		o.dims.Store(int64(knownDims[cfg.Model]))
	}
	return o, nil
}

// embeddingsURL turns a base URL into the embeddings endpoint.
func embeddingsURL(base string) (endpoint, host string, err error) {
	return APIEndpoint(base, "embeddings")
}

// APIEndpoint turns the base URL of an OpenAI-compatible server, with or without
// "/v1" or already ending in "/<resource>", into the URL of resource
// ("embeddings", "chat/completions"), and returns the host too (for the rule that
// an OpenAI key is only sent to api.openai.com).
func APIEndpoint(base, resource string) (endpoint, host string, err error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return "", "", fmt.Errorf("bad URL %q: %w", base, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("bad URL %q: want http(s)://host[:port][/path]", base)
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/"+resource):
	case strings.HasSuffix(p, "/v1"):
		p += "/" + resource
	default:
		p += "/v1/" + resource
	}
	u.Path, u.RawPath = p, ""
	return u.String(), u.Hostname(), nil
}

// Name returns "openai:<model>", with "@<dims>" when dims are requested.
func (o *OpenAI) Name() string { return o.name }

// Dims returns the vector length: the configured or known one, else the one
// learned from the first response (0 before; see [OpenAI.Probe]).
func (o *OpenAI) Dims() int { return int(o.dims.Load()) }

// Endpoint returns the URL requests are sent to.
func (o *OpenAI) Endpoint() string { return o.endpoint }

// Probe embeds a short text to check the server, the key and the model, and
// returns the vector length.
func (o *OpenAI) Probe(ctx context.Context) (int, error) {
	if _, err := o.Embed(ctx, []string{"probe"}); err != nil {
		return 0, err
	}
	return o.Dims(), nil
}

// Embed sends the texts in batches of BatchSize and returns one unit vector
// per text. Errors caused by the backend being unreachable, overloaded or
// failing (after retries) wrap [ErrUnavailable].
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	bs := o.cfg.BatchSize
	nb := (len(texts) + bs - 1) / bs
	if o.cfg.Concurrency == 1 || nb == 1 {
		for start := 0; start < len(texts); start += bs {
			end := min(start+bs, len(texts))
			if err := o.embedBatch(ctx, texts[start:end], out[start:end]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}

	// The first failure cancels the batches in flight and stops new ones.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.cfg.Concurrency)
	for start := 0; start < len(texts) && gctx.Err() == nil; start += bs {
		end := min(start+bs, len(texts))
		g.Go(func() error { return o.embedBatch(gctx, texts[start:end], out[start:end]) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed via %s: %w", o.endpoint, err)
	}
	return out, nil
}

// attemptError is the outcome of one failed request.
type attemptError struct {
	err        error
	retryable  bool
	retryAfter time.Duration
}

// embedBatch embeds one batch into out, retrying transient failures.
func (o *OpenAI) embedBatch(ctx context.Context, texts []string, out [][]float32) error {
	body, err := o.requestBody(texts)
	if err != nil {
		return fmt.Errorf("embed via %s: %w", o.endpoint, err)
	}
	for attempt := 0; ; attempt++ {
		ae := o.attempt(ctx, body, out)
		if ae == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("embed via %s: %w", o.endpoint, ctx.Err())
		}
		if !ae.retryable {
			return ae.err
		}
		if attempt >= o.cfg.MaxRetries {
			return fmt.Errorf("%w (gave up after %d attempts)", ae.err, attempt+1)
		}
		wait := o.backoff(attempt)
		if ae.retryAfter > 0 {
			if ae.retryAfter > maxRetryAfter {
				return fmt.Errorf("%w (server asks to retry after %s)", ae.err, ae.retryAfter)
			}
			wait = max(wait, ae.retryAfter)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return fmt.Errorf("%w (no time left to retry before the deadline)", ae.err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("embed via %s: %w", o.endpoint, ctx.Err())
		case <-t.C:
		}
	}
}

// backoff returns the delay before retry number attempt+1: exponential with
// "equal jitter" (half fixed, half random) so that clients that failed
// together do not retry together.
func (o *OpenAI) backoff(attempt int) time.Duration {
	d := o.cfg.BackoffBase << min(attempt, 30)
	if d <= 0 || d > o.cfg.BackoffMax {
		d = o.cfg.BackoffMax
	}
	half := d / 2
	return half + rand.N(half+1)
}

func (o *OpenAI) requestBody(texts []string) ([]byte, error) {
	inputs := make([]string, len(texts))
	for i, t := range texts {
		if o.cfg.MaxInputBytes > 0 && len(t) > o.cfg.MaxInputBytes {
			cut := o.cfg.MaxInputBytes
			for j := 0; j < utf8.UTFMax-1 && !utf8.RuneStart(t[cut]); j++ {
				cut--
			}
			t = t[:cut]
		}
		if strings.TrimSpace(t) == "" {
			t = " " // OpenAI rejects empty strings
		}
		inputs[i] = t
	}
	req := struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions,omitempty"`
	}{Model: o.cfg.Model, Input: inputs}
	if o.cfg.RequestDims {
		req.Dimensions = o.cfg.Dims
	}
	return json.Marshal(req) // invalid UTF-8 becomes U+FFFD
}

// attempt makes one request and fills out on success.
func (o *OpenAI) attempt(ctx context.Context, body []byte, out [][]float32) *attemptError {
	rctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return &attemptError{err: fmt.Errorf("embed via %s: %w", o.endpoint, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "spelunk")
	if o.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the endpoint is already in our message
		}
		return &attemptError{
			err:       fmt.Errorf("embed via %s: %w: %w", o.endpoint, ErrUnavailable, err),
			retryable: true,
		}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return &attemptError{
			err:       fmt.Errorf("embed via %s: read response: %w: %w", o.endpoint, ErrUnavailable, err),
			retryable: true,
		}
	}

	switch code := resp.StatusCode; {
	case code == http.StatusOK:
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &attemptError{err: fmt.Errorf("API key rejected by %s: HTTP %d: %s", o.endpoint, code, ServerMessage(data))}
	case code == http.StatusTooManyRequests || code == http.StatusRequestTimeout ||
		(code >= 500 && code != http.StatusNotImplemented && code != http.StatusHTTPVersionNotSupported):
		return &attemptError{
			err:        fmt.Errorf("embed via %s: %w: HTTP %d: %s", o.endpoint, ErrUnavailable, code, ServerMessage(data)),
			retryable:  true,
			retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
		}
	default:
		return &attemptError{err: fmt.Errorf("embed via %s: HTTP %d: %s", o.endpoint, code, ServerMessage(data))}
	}
	if err := o.decode(data, out); err != nil {
		return &attemptError{err: fmt.Errorf("embed via %s (model %s): %w", o.endpoint, o.cfg.Model, err)}
	}
	return nil
}

// decode parses a response into out, using each item's index (responses may
// be out of order), checking the dims and normalising.
func (o *OpenAI) decode(data []byte, out [][]float32) error {
	var resp struct {
		Data []struct {
			Index     *int            `json:"index"`
			Embedding json.RawMessage `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return fmt.Errorf("bad response: %w", err)
	}
	if len(resp.Data) != len(out) {
		return fmt.Errorf("bad response: %d embeddings for %d inputs", len(resp.Data), len(out))
	}
	got := make([][]float32, len(out))
	for pos, item := range resp.Data {
		i := pos
		if item.Index != nil {
			i = *item.Index
		}
		if i < 0 || i >= len(out) || got[i] != nil {
			return fmt.Errorf("bad response: index %d out of range or repeated", i)
		}
		v, err := parseEmbedding(item.Embedding)
		if err != nil {
			return fmt.Errorf("bad response: embedding %d: %w", i, err)
		}
		want := int(o.dims.Load())
		if want == 0 {
			// The first response teaches the dims; a racing batch may win.
			o.dims.CompareAndSwap(0, int64(len(v)))
			want = int(o.dims.Load())
		}
		if len(v) != want {
			if o.cfg.Dims > 0 {
				return fmt.Errorf("dims mismatch: the server returned %d-dimensional vectors, configured dims is %d", len(v), o.cfg.Dims)
			}
			return fmt.Errorf("dims mismatch: the server returned %d-dimensional vectors, expected %d", len(v), want)
		}
		if !normalize(v) {
			return fmt.Errorf("bad response: embedding %d is zero or not finite", i)
		}
		got[i] = v
	}
	copy(out, got)
	return nil
}

// parseEmbedding accepts a JSON array of numbers or a base64 string of
// little-endian float32s (encoding_format "base64").
func parseEmbedding(raw json.RawMessage) ([]float32, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b)%4 != 0 {
			return nil, errors.New("bad base64 embedding")
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v, nil
	}
	var v []float32
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	if len(v) == 0 {
		return nil, errors.New("empty embedding")
	}
	return v, nil
}

// ServerMessage extracts a readable error from a response body: OpenAI's
// {"error":{"message":...}}, the {"error":"..."} of Ollama and TEI, or the
// text itself, shortened.
func ServerMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			return shorten(s)
		case json.Unmarshal(e.Error, &obj) == nil && obj.Message != "":
			return shorten(obj.Message)
		case e.Message != "":
			return shorten(e.Message)
		}
	}
	if s := strings.TrimSpace(string(body)); s != "" {
		return shorten(s)
	}
	return "(empty body)"
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
	if len(s) > 300 {
		cut := 300
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || math.IsNaN(secs) {
			return 0
		}
		if secs > 1e6 {
			secs = 1e6
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
