// Package hooks installs, removes and inspects the git hooks that keep an index
// fresh: post-commit, post-merge, post-checkout and post-rewrite each start an
// incremental `spelunk` run in the background and return at once.
//
// spelunk's part of a hook is a block between two marker lines, inserted right
// after the #! line of the hook file. A hook that is already there is kept and
// runs after the block, with its arguments, standard input and exit status
// untouched; a file spelunk created holds only a #! line, one comment and the
// block. Uninstalling deletes exactly the block (and a file spelunk created), so
// a hook that was there before is left byte for byte as it was.
//
// Why a block and not a wrapper that moves the original aside and execs it: the
// original keeps its name ($0, which hook managers dispatch on), its inode and
// its place for the user who edits it, and nothing needs restoring when a
// wrapper and its original drift apart. The price is that only shell scripts
// can take a block; a binary, a Python hook, a symlink or a disabled hook is
// left alone and reported.
package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Names are the hooks spelunk installs: the ways HEAD moves to new content
// (git reset fires none).
var Names = []string{"post-commit", "post-merge", "post-checkout", "post-rewrite"}

// Location is where a repository's hooks live and what they run for.
type Location struct {
	Root   string `json:"root"`    // the working tree's top level, symlinks resolved
	GitDir string `json:"git_dir"` // this working tree's git dir (per worktree)
	Dir    string `json:"dir"`     // the hooks directory git uses (core.hooksPath honoured)
	// InWorkTree is set when Dir lies in the working tree outside .git (a
	// relative core.hooksPath such as .githooks): edits there show in git status.
	InWorkTree bool `json:"in_work_tree"`
}

// Locate finds the hooks of the git working tree containing dir. It asks git
// (rev-parse --git-path hooks) rather than joining .git/hooks, so that
// core.hooksPath, absolute or relative, and linked worktrees resolve as git
// itself resolves them.
func Locate(ctx context.Context, dir string) (Location, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Location{}, fmt.Errorf("hooks of %s: %w", dir, err)
	}
	cmd := exec.CommandContext(ctx, "git", "-C", abs, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-path", "hooks")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return Location{}, fmt.Errorf("hooks of %s: not a git working tree (%s)", abs, strings.TrimPrefix(msg, "fatal: "))
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 {
		return Location{}, fmt.Errorf("hooks of %s: unexpected git rev-parse output %q", abs, out)
	}
	loc := Location{Root: lines[0], GitDir: lines[1], Dir: lines[2]}
	// A relative hooks path is relative to where git ran, here abs.
	if !filepath.IsAbs(loc.Dir) {
		loc.Dir = filepath.Join(abs, loc.Dir)
	}
	loc.Dir = filepath.Clean(loc.Dir)
	if real, err := filepath.EvalSymlinks(loc.Root); err == nil {
		loc.Root = real // the key the index registers the repository under
	}
	loc.InWorkTree = inWorkTree(loc)
	return loc, nil
}

func inWorkTree(loc Location) bool {
	dir := loc.Dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(loc.Root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	return first != ".git"
}

// State is what a hook file holds, as far as spelunk is concerned.
type State string

const (
	NotInstalled State = "not installed" // no hook file
	Installed    State = "installed"     // spelunk's block is in the file
	Foreign      State = "foreign"       // somebody else's hook, without the block
)

// Hook is one hook file and, after Install or Uninstall, what was done to it.
type Hook struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	State State  `json:"state"`
	// Chained: spelunk's block sits in a hook that holds more than the block.
	Chained bool `json:"chained"`
	// Binary is the spelunk the block starts; BinaryMissing when it is gone,
	// so the block does nothing.
	Binary        string `json:"binary,omitempty"`
	BinaryMissing bool   `json:"binary_missing,omitempty"`
	// Refused says why spelunk cannot put its block into this foreign hook.
	Refused string `json:"refused,omitempty"`
	// Action is what Install or Uninstall did: created, chained, updated,
	// unchanged, refused, removed, unchained or none.
	Action string `json:"action,omitempty"`
}

// Report is the state of a repository's hooks.
type Report struct {
	Location
	Hooks []Hook `json:"hooks"`
}

// Status inspects the hooks of the repository containing dir without changing
// anything.
func Status(ctx context.Context, dir string) (Report, error) {
	loc, err := Locate(ctx, dir)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Location: loc}
	for _, name := range Names {
		f, err := readHook(filepath.Join(loc.Dir, name))
		if err != nil {
			return rep, err
		}
		rep.Hooks = append(rep.Hooks, f.hook(name))
	}
	return rep, nil
}

// hook describes f as a Hook.
func (f hookFile) hook(name string) Hook {
	h := Hook{Name: name, Path: f.path, State: NotInstalled}
	switch {
	case !f.exists:
	case f.hasBlock():
		h.State, h.Chained = Installed, !f.createdOnly()
		h.Binary = f.binary()
		if h.Binary != "" {
			fi, err := os.Stat(h.Binary)
			h.BinaryMissing = err != nil || fi.IsDir()
		}
	default:
		h.State, h.Refused = Foreign, f.refused
	}
	return h
}
