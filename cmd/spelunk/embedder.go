package main

import (
	"fmt"
	"os"
	"strconv"

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
}

func (f *embedFlags) register(fs *pflag.FlagSet) {
	dims, _ := strconv.Atoi(os.Getenv("SPELUNK_EMBED_DIMS"))
	fs.StringVar(&f.provider, "embedder", envOr("SPELUNK_EMBEDDER", "auto"), "embedding provider: auto (GloVe when installed, else hash), glove, hash, openai")
	fs.StringVar(&f.model, "embed-model", os.Getenv("SPELUNK_EMBED_MODEL"), "model name for --embedder openai")
	fs.StringVar(&f.url, "embed-url", os.Getenv("SPELUNK_EMBED_URL"), "base URL of an OpenAI-compatible /v1/embeddings server")
	fs.IntVar(&f.dims, "embed-dims", dims, "vector dimensions (hash: default 384; openai: expected, 0 = learn)")
}

// embedder builds the configured embedder; note is a line to show the user when the
// choice deserves one (a fallback).
func (f *embedFlags) embedder() (embed.Embedder, string, error) {
	return embed.FromConfigWithNote(embed.Config{Provider: f.provider, Model: f.model, URL: f.url, Dims: f.dims})
}

// embedderAsync starts building the embedder in the background and returns a
// function that waits for it: loading the word vectors overlaps connecting to
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
	return func() (embed.Embedder, string, error) {
		b := <-ch
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
		desc := fmt.Sprintf("%s (%d dims)", e.Name(), e.Dims())
		if note != "" {
			return desc, "GloVe data not installed, hashing fallback in use", nil
		}
		return desc, "", nil
	}
}
