package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// readmeWords is the README's budget: read in five minutes (issue 40);
// everything longer lives under docs/.
const readmeWords = 2000

func TestReadmeIsShort(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(string(data))); n > readmeWords {
		t.Errorf("README.md has %d words, want at most %d: move the detail to docs/", n, readmeWords)
	}
}

// TestReadmeCommandsRun checks that every spelunk command the README shows
// (a "$ spelunk ..." line or an inline `spelunk ...`) names a real
// subcommand and only flags that it has.
func TestReadmeCommandsRun(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "$ spelunk"); ok {
			cmds = append(cmds, rest)
		}
	}
	inline := regexp.MustCompile("`spelunk( [^`]*)?`")
	joined := strings.Join(strings.Fields(string(data)), " ") // an inline command may wrap
	for _, m := range inline.FindAllStringSubmatch(joined, -1) {
		cmds = append(cmds, m[1])
	}
	if len(cmds) < 10 {
		t.Fatalf("found %d commands in the README, want its tour's", len(cmds))
	}
	for _, c := range cmds {
		checkCommandLine(t, c)
	}
}

// checkCommandLine resolves "search QUERY --flag" against the real command tree.
func checkCommandLine(t *testing.T, line string) {
	t.Helper()
	args := shellWords(line)
	root := newRoot()
	root.InitDefaultHelpCmd()
	cmd, rest, err := root.Find(args)
	if err != nil {
		t.Errorf("spelunk%s: %v", line, err)
		return
	}
	if cmd == root && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		t.Errorf("spelunk%s: no command %q", line, rest[0])
		return
	}
	if cmd.Name() == "help" && len(rest) > 0 && rest[0] != strings.ToUpper(rest[0]) { // COMMAND is a placeholder
		if _, _, err := root.Find(rest); err != nil {
			t.Errorf("spelunk%s: %v", line, err)
		}
		return
	}
	for _, a := range rest {
		if a == "<" {
			break // a redirection: the rest is the shell's
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasFlag(cmd, name, !strings.HasPrefix(a, "--")) {
			t.Errorf("spelunk%s: %s has no flag %s", line, cmd.CommandPath(), a)
		}
	}
}

func hasFlag(cmd *cobra.Command, name string, short bool) bool {
	if short {
		return cmd.Flags().ShorthandLookup(name) != nil || cmd.InheritedFlags().ShorthandLookup(name) != nil
	}
	return cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil
}

// shellWords splits a command line at spaces, keeping quoted words whole.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
