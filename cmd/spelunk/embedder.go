package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// embedFlags choose the embedding model. The API key comes only from the environment
// (SPELUNK_EMBED_API_KEY or OPENAI_API_KEY), never from a flag that shows in `ps`.
type embedFlags struct {
	provider string
	model    string
	url      string
	dims     int
	badEnv   string // $SPELUNK_EMBED_DIMS when it is not a number
}

func (f *embedFlags) register(fs *pflag.FlagSet) {
	env := os.Getenv("SPELUNK_EMBED_DIMS")
	dims, err := strconv.Atoi(env)
	if err != nil && env != "" {
		f.badEnv = env
	}
	fs.StringVar(&f.provider, "embedder", envOr("SPELUNK_EMBEDDER", "auto"), "embedding provider: auto (the built-in code model, else GloVe when installed, else hash), code, glove, hash, openai")
	fs.StringVar(&f.model, "embed-model", os.Getenv("SPELUNK_EMBED_MODEL"), "model name for --embedder openai")
	fs.StringVar(&f.url, "embed-url", os.Getenv("SPELUNK_EMBED_URL"), "base URL of an OpenAI-compatible /v1/embeddings server")
	fs.IntVar(&f.dims, "embed-dims", dims, "vector dimensions (hash: default 384; openai: expected, 0 = learn)")
}

// embedProviders are the values of --embedder ("hashing" is an old spelling of hash).
var embedProviders = []string{embed.ProviderAuto, embed.ProviderCode, embed.ProviderGloVe, embed.ProviderHash, embed.ProviderOpenAI}

// maxEmbedDims is pgvector's limit on a vector's dimensions.
const maxEmbedDims = 16000

// check refuses an unknown provider or an impossible dimension as a usage error,
// before any command connects to the database (the embedder is built later, and
// search built it only after connecting).
func (f *embedFlags) check() error {
	p := strings.ToLower(strings.TrimSpace(f.provider))
	if p != "" && p != "hashing" && !slices.Contains(embedProviders, p) {
		return usagef("--embedder (or $SPELUNK_EMBEDDER) must be one of %s (got %q)", strings.Join(embedProviders, ", "), f.provider)
	}
	if f.badEnv != "" {
		return usagef("$SPELUNK_EMBED_DIMS must be a number of dimensions (got %q)", f.badEnv)
	}
	if f.dims < 0 || f.dims > maxEmbedDims {
		return usagef("--embed-dims (or $SPELUNK_EMBED_DIMS) must be between 0 and %d (got %d)", maxEmbedDims, f.dims)
	}
	return nil
}

// embedder builds the configured embedder; note is a line to show the user when the
// choice deserves one (a fallback).
func (f *embedFlags) embedder() (embed.Embedder, string, error) {
	return embed.FromConfigWithNote(embed.Config{Provider: f.provider, Model: f.model, URL: f.url, Dims: f.dims})
}

// embedderAsync starts building the embedder in the background and returns a
// function that waits for it (and may be called again): loading the word vectors overlaps connecting to
// the database, the two slowest steps of a search process's start.
func (f *embedFlags) embedderAsync() func() (embed.Embedder, string, error) {
	type built struct {
		e    embed.Embedder
		note string
		err  error
	}
	ch := make(chan built, 1)
	go func() {
		e, note, err := f.embedder()
		ch <- built{e, note, err}
	}()
	// The result is received once and kept: callers may ask more than once.
	var once sync.Once
	var b built
	return func() (embed.Embedder, string, error) {
		once.Do(func() { b = <-ch })
		return b.e, b.note, b.err
	}
}

// embedderStatus is doctor's view of the embedder.
func embedderStatus(f *embedFlags) func() (string, string, error) {
	return func() (string, string, error) {
		e, note, err := f.embedder()
		if err != nil {
			return "", "", err
		}
		if note != "" {
			return describeEmbedder(e), "no code model in this build and no GloVe data, hashing fallback in use", nil
		}
		return describeEmbedder(e), "", nil
	}
}

// describeEmbedder names the model in use and what it is made of.
func describeEmbedder(e embed.Embedder) string {
	desc := fmt.Sprintf("%s (%d dims)", e.Name(), e.Dims())
	switch e := e.(type) {
	case *embed.Static:
		m := e.Meta()
		desc += fmt.Sprintf(": static code model, %d tokens × %d dims + %d hashed", e.Words(), m.Dims, m.HashDims)
		if m.Teacher != "" {
			desc += ", distilled from " + m.Teacher
		}
	case *embed.GloVe:
		desc += fmt.Sprintf(": GloVe word vectors, %d words (%s)", e.Words(), e.Source())
	case *embed.Hashing:
		desc += ": feature hashing, no word vectors"
	}
	return desc
}
