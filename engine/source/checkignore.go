package source

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Ignored reports which of paths (slash-separated, relative to Root; files or
// directories, present or not) a listing of the working tree leaves out, so
// that a watcher can skip them without asking for a run. In a git repository
// that is `git check-ignore --stdin` (its exclude rules: .gitignore files,
// info/exclude, core.excludesFile; a tracked file is never ignored); a plain
// directory applies its .gitignore files and the directories its walk prunes.
// Anything inside a .git directory is always ignored.
func (r *Repo) Ignored(ctx context.Context, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	var ask []string
	for _, p := range cleanPaths(paths) {
		if inGitDir(p) {
			out[p] = true
			continue
		}
		ask = append(ask, p)
	}
	if len(ask) == 0 {
		return out, nil
	}
	if !r.IsGit {
		r.ignoredPlain(ctx, ask, out)
		return out, ctx.Err()
	}
	var in bytes.Buffer
	for _, p := range ask {
		in.WriteString(p)
		in.WriteByte(0)
	}
	args := []string{"check-ignore", "-z", "--stdin"}
	cmd := gitCommand(ctx, r.Root, args...)
	var stdout bytes.Buffer
	stderr := &boundedBuffer{max: 4096}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &in, &stdout, stderr
	// Exit 1: none of them is ignored.
	if err := cmd.Run(); err != nil && exitCode(err) != 1 {
		return nil, fmt.Errorf("check %d paths of %s against the ignore rules: %w", len(ask), r.Root, gitFailure(ctx, args, err, stderr.String()))
	}
	for _, rec := range bytes.Split(stdout.Bytes(), []byte{0}) {
		if len(rec) > 0 {
			out[strings.TrimSuffix(string(rec), "/")] = true
		}
	}
	return out, nil
}

// inGitDir reports whether p is a .git entry or lies inside one.
func inGitDir(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".git" {
			return true
		}
	}
	return false
}

// ignoredPlain is Ignored for a plain directory: each path is tested against
// the .gitignore files of its directory and every one above it, as walkPlain
// applies them, and against prunedDirs.
func (r *Repo) ignoredPlain(ctx context.Context, paths []string, out map[string]bool) {
	rulesOf := map[string][]ignoreRule{} // directory -> the rules of its own .gitignore
	load := func(dir string) []ignoreRule {
		if rules, ok := rulesOf[dir]; ok {
			return rules
		}
		var buf bytes.Buffer
		var rules []ignoreRule
		abs := filepath.Join(r.Root, filepath.FromSlash(dir), ".gitignore")
		if _, err := readFile(ctx, abs, &buf, math.MaxInt64); err == nil {
			rules = parseIgnore(dir, buf.Bytes())
		}
		rulesOf[dir] = rules
		return rules
	}
	for _, p := range paths {
		if inPrunedDir(p) {
			out[p] = true
			continue
		}
		fi, err := os.Lstat(filepath.Join(r.Root, filepath.FromSlash(p)))
		isDir := err == nil && fi.IsDir()
		if isDir && prunedDirs[path.Base(p)] {
			out[p] = true
			continue
		}
		rules := load("")
		segs := strings.Split(p, "/")
		for i := 1; i < len(segs); i++ {
			rules = append(rules[:len(rules):len(rules)], load(strings.Join(segs[:i], "/"))...)
		}
		if ignored(rules, p, isDir) {
			out[p] = true
		}
	}
}

// GitDirs returns the work tree's git directory (HEAD, the index, a rebase's
// state) and the common directory that holds the refs (packed-refs,
// refs/heads), both absolute. They are the same directory except in a linked
// worktree (git worktree add), whose git directory is .git/worktrees/NAME.
func (r *Repo) GitDirs(ctx context.Context) (gitDir, commonDir string, err error) {
	if !r.IsGit {
		return "", "", fmt.Errorf("git directories of %s: %w", r.Root, ErrNotGit)
	}
	out, err := runGit(ctx, r.Root, "rev-parse", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return "", "", fmt.Errorf("git directories of %s: %w", r.Root, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 || lines[0] == "" || lines[1] == "" {
		return "", "", fmt.Errorf("git directories of %s: unexpected git rev-parse output %q", r.Root, out)
	}
	gitDir, commonDir = filepath.FromSlash(lines[0]), filepath.FromSlash(lines[1])
	if !filepath.IsAbs(commonDir) { // relative to the directory git ran in
		commonDir = filepath.Join(r.Root, commonDir)
	}
	return filepath.Clean(gitDir), filepath.Clean(commonDir), nil
}
