package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestRunTUIWithoutATerminal(t *testing.T) {
	cmd := &cobra.Command{Use: "spelunk"}
	addTUIFlags(cmd)
	// go test's stdout is a pipe, never a terminal.
	err := runTUI(cmd, &globals{})
	if !errors.Is(err, errNoTTY) {
		t.Fatalf("runTUI without a terminal: %v, want errNoTTY", err)
	}
	for _, want := range []string{"needs a terminal", "spelunk search", "spelunk --help"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%s", want, err)
		}
	}
}

// TestBareSpelunkWithoutATerminal checks the wiring: `spelunk` with no subcommand
// opens the UI, which without a terminal exits 1 pointing to the subcommands.
func TestBareSpelunkWithoutATerminal(t *testing.T) {
	if newRoot().RunE == nil {
		t.Fatal("the root command does not call runTUI")
	}
	code, _, errOut := spelunk(t)
	if code != 1 || !strings.Contains(errOut, "needs a terminal") {
		t.Fatalf("spelunk without a terminal: exit %d, stderr %q; want 1 and the subcommands", code, errOut)
	}
}

func TestDBLabel(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", "")
	tests := map[string]string{
		"": "embedded",
		"postgres://u:secret@db.example.com:5432/spelunk?sslmode=require": "db.example.com/spelunk",
		"postgres://postgres@/spelunk?host=/tmp/x":                        "local/spelunk",
		"host=/tmp dbname=x": "custom",
	}
	for in, want := range tests {
		if got := dbLabel(in); got != want {
			t.Errorf("dbLabel(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(dbLabel(in), "secret") {
			t.Errorf("dbLabel(%q) shows the password", in)
		}
	}
}

func TestEvalPath(t *testing.T) {
	cmd := &cobra.Command{Use: "spelunk"}
	addTUIFlags(cmd)
	t.Setenv("SPELUNK_EVAL_FILE", "")
	if got, want := evalPath(cmd, "/repo"), filepath.Join("/repo", "testdata", "eval", "saved.jsonl"); got != want {
		t.Errorf("default eval path %q, want %q", got, want)
	}
	t.Setenv("SPELUNK_EVAL_FILE", "/tmp/e.jsonl")
	if got := evalPath(cmd, "/repo"); got != "/tmp/e.jsonl" {
		t.Errorf("env eval path %q", got)
	}
	if err := cmd.Flags().Set("eval-file", "/x/flag.jsonl"); err != nil {
		t.Fatal(err)
	}
	if got := evalPath(cmd, "/repo"); got != "/x/flag.jsonl" {
		t.Errorf("flag eval path %q", got)
	}
}
