package embed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultGloVePath(t *testing.T) {
	tests := []struct {
		name, spelunk, xdg, home, want string
	}{
		{"override", "/data/g.bin", "/xdg", "/home/u", "/data/g.bin"},
		{"xdg", "", "/xdg", "/home/u", "/xdg/spelunk/embed/glove-100d.bin"},
		{"relative xdg ignored", "", "rel/xdg", "/home/u", "/home/u/.local/share/spelunk/embed/glove-100d.bin"},
		{"home", "", "", "/home/u", "/home/u/.local/share/spelunk/embed/glove-100d.bin"},
	}
	for _, tt := range tests {
		t.Setenv("SPELUNK_GLOVE", tt.spelunk)
		t.Setenv("XDG_DATA_HOME", tt.xdg)
		t.Setenv("HOME", tt.home)
		if got := DefaultGloVePath(); got != tt.want {
			t.Errorf("%s: DefaultGloVePath() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFromConfig(t *testing.T) {
	dir := t.TempDir()
	glove := filepath.Join(dir, "glove.bin")
	if err := ImportWink(context.Background(), fixtureTGZ, glove, 0); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "corrupt.bin")
	os.WriteFile(corrupt, []byte("garbage"), 0o644)
	missing := filepath.Join(dir, "missing.bin")
	t.Setenv("SPELUNK_GLOVE", missing) // the default path, for configs without GloVePath
	t.Setenv("SPELUNK_EMBED_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")

	tests := []struct {
		name     string
		cfg      Config
		wantType string
		wantName string
		wantNote string // substring; "" means no note
		wantErr  string
	}{
		{"auto with data", Config{GloVePath: glove}, "*embed.GloVe", "spelunk-glove-", "", ""},
		{"auto keyword", Config{Provider: "AUTO", GloVePath: glove}, "*embed.GloVe", "spelunk-glove-", "", ""},
		{"auto without data", Config{}, "*embed.Hashing", "spelunk-hash-384-v1", "GloVe data not found at " + missing, ""},
		{"auto without data, dims", Config{Dims: 256}, "*embed.Hashing", "spelunk-hash-256-v1", "make setup", ""},
		{"auto corrupt data", Config{GloVePath: corrupt}, "", "", "", "not a valid spelunk GloVe file"},
		{"glove", Config{Provider: "glove", GloVePath: glove}, "*embed.GloVe", "spelunk-glove-", "", ""},
		{"glove missing", Config{Provider: "glove"}, "", "", "", "make setup"},
		{"hash", Config{Provider: "hash", GloVePath: glove}, "*embed.Hashing", "spelunk-hash-384-v1", "", ""},
		{"hash dims", Config{Provider: "hash", Dims: 64}, "*embed.Hashing", "spelunk-hash-64-v1", "", ""},
		{"openai local", Config{Provider: "openai", URL: "http://localhost:11434", Model: "nomic-embed-text", Dims: 768},
			"*embed.OpenAI", "openai:nomic-embed-text", "", ""},
		{"openai without key", Config{Provider: "openai"}, "", "", "", "no API key"},
		{"unknown", Config{Provider: "bert"}, "", "", "", `unknown provider "bert"`},
	}
	for _, tt := range tests {
		e, note, err := FromConfigWithNote(tt.cfg)
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
		if got := typeName(e); got != tt.wantType {
			t.Errorf("%s: type %s, want %s", tt.name, got, tt.wantType)
		}
		if !strings.HasPrefix(e.Name(), tt.wantName) {
			t.Errorf("%s: Name() = %q, want prefix %q", tt.name, e.Name(), tt.wantName)
		}
		if (tt.wantNote == "") != (note == "") || !strings.Contains(note, tt.wantNote) {
			t.Errorf("%s: note = %q, want %q", tt.name, note, tt.wantNote)
		}
		e2, err := FromConfig(tt.cfg)
		if err != nil || e2.Name() != e.Name() {
			t.Errorf("%s: FromConfig disagrees with FromConfigWithNote: %v, %v", tt.name, e2, err)
		}
	}
	_, err := FromConfig(Config{Provider: "glove"})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("glove missing: err = %v, want os.ErrNotExist in the chain", err)
	}
}

func typeName(e Embedder) string {
	switch e.(type) {
	case *GloVe:
		return "*embed.GloVe"
	case *Hashing:
		return "*embed.Hashing"
	case *OpenAI:
		return "*embed.OpenAI"
	}
	return "?"
}
