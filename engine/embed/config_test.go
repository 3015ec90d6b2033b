package embed

import (
	"bytes"
	"context"
	"errors"
	"io"
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
	t.Setenv("SPELUNK_CODE_MODEL", "")
	withEmbeddedCode(t, nil) // a build without the code model
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
		{"auto without data", Config{}, "*embed.Hashing", "spelunk-hash-384-v1", "no code model in this build and GloVe data not found at " + missing, ""},
		{"auto without data, dims", Config{Dims: 256}, "*embed.Hashing", "spelunk-hash-256-v1", "make setup", ""},
		{"auto corrupt data", Config{GloVePath: corrupt}, "", "", "", "not a valid spelunk GloVe file"},
		{"glove", Config{Provider: "glove", GloVePath: glove}, "*embed.GloVe", "spelunk-glove-", "", ""},
		{"glove missing", Config{Provider: "glove"}, "", "", "", "make setup"},
		{"hash", Config{Provider: "hash", GloVePath: glove}, "*embed.Hashing", "spelunk-hash-384-v1", "", ""},
		{"hash dims", Config{Provider: "hash", Dims: 64}, "*embed.Hashing", "spelunk-hash-64-v1", "", ""},
		{"openai local", Config{Provider: "openai", URL: "http://localhost:11434", Model: "nomic-embed-text", Dims: 768},
			"*embed.OpenAI", "openai:nomic-embed-text", "", ""},
		{"openai without key", Config{Provider: "openai"}, "", "", "", "no API key"},
		{"code not built in", Config{Provider: "code", GloVePath: glove}, "", "", "", "no code model in this build"},
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
	case *Static:
		return "*embed.Static"
	case *Hashing:
		return "*embed.Hashing"
	case *OpenAI:
		return "*embed.OpenAI"
	}
	return "?"
}

// withEmbeddedCode makes the build's code model b (none when b is nil) for the
// test's duration.
func withEmbeddedCode(t *testing.T, b []byte) {
	saved := embeddedCode
	t.Cleanup(func() { embeddedCode = saved })
	embeddedCode = func() (io.ReaderAt, int64, bool) {
		if b == nil {
			return nil, 0, false
		}
		return bytes.NewReader(b), int64(len(b)), true
	}
}

// TestFromConfigCodeModel: with a code model built in, auto and code choose
// it; glove and hash still mean what they say; a code model file overrides
// the built-in one, and a bad one is an error rather than a silent fallback.
func TestFromConfigCodeModel(t *testing.T) {
	dir := t.TempDir()
	glove := filepath.Join(dir, "glove.bin")
	if err := ImportWink(context.Background(), fixtureTGZ, glove, 0); err != nil {
		t.Fatal(err)
	}
	code, _, _ := placeholderModel(t)
	other := filepath.Join(dir, "other.bin")
	os.WriteFile(other, synthStaticFile(t, synthWords(500), 16), 0o644)
	corrupt := filepath.Join(dir, "corrupt.bin")
	os.WriteFile(corrupt, code[:len(code)-1], 0o644)
	t.Setenv("SPELUNK_GLOVE", filepath.Join(dir, "missing.bin"))
	t.Setenv("SPELUNK_CODE_MODEL", "")
	withEmbeddedCode(t, code)

	tests := []struct {
		name, env string
		cfg       Config
		wantType  string
		wantName  string
		wantErr   string
	}{
		{"auto", "", Config{}, "*embed.Static", "spelunk-code-test-76d-v0", ""},
		{"auto with glove installed", "", Config{GloVePath: glove}, "*embed.Static", "spelunk-code-test-76d-v0", ""},
		{"code", "", Config{Provider: "Code"}, "*embed.Static", "spelunk-code-test-76d-v0", ""},
		{"glove", "", Config{Provider: "glove", GloVePath: glove}, "*embed.GloVe", "spelunk-glove-", ""},
		{"hash", "", Config{Provider: "hash"}, "*embed.Hashing", "spelunk-hash-384-v1", ""},
		{"code file", "", Config{Provider: "code", CodeModelPath: other}, "*embed.Static", "spelunk-code-synth-16d", ""},
		{"code file from env", other, Config{}, "*embed.Static", "spelunk-code-synth-16d", ""},
		{"corrupt code file", "", Config{CodeModelPath: corrupt}, "", "", "not a valid spelunk static model file"},
		{"missing code file", "", Config{Provider: "code", CodeModelPath: filepath.Join(dir, "nope.bin")}, "", "", "no such file"},
	}
	for _, tt := range tests {
		t.Setenv("SPELUNK_CODE_MODEL", tt.env)
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
		if got := typeName(e); got != tt.wantType || !strings.HasPrefix(e.Name(), tt.wantName) || note != "" {
			t.Errorf("%s: %s %q, note %q; want %s %q, no note", tt.name, got, e.Name(), note, tt.wantType, tt.wantName)
		}
	}
}
