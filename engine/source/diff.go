package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ChangeKind says how a path changed between two commits.
type ChangeKind string

// The kinds of Change.
const (
	Added    ChangeKind = "added"
	Modified ChangeKind = "modified" // content or type (file <-> symlink) changed
	Deleted  ChangeKind = "deleted"
	Renamed  ChangeKind = "renamed" // possibly with edits: compare BlobSHA
)

// Change is one changed path.
type Change struct {
	Kind    ChangeKind
	Path    string // the path at "to" (for Deleted: the path that was removed)
	OldPath string // Renamed only: the path at "from"
	BlobSHA string // the blob at "to"; "" for Deleted and for submodules
	// Mode is git's mode at "to" ("100644", "100755", "120000" for a
	// symlink, "160000" for a submodule); "" for Deleted. Paths with 120000
	// and 160000 are listed by Files with the symlink and submodule reasons.
	Mode string
}

// Diff lists what changed from commit from to commit to ("" = r.Head), with
// renames detected (`git diff-tree -r -M -z`). With from == "" every file
// at to is Added. When from (or to) is not a commit this repository has,
// as after a history rewrite or beyond a shallow clone's boundary, the
// error matches ErrUnknownCommit and the caller should do a full scan.
// Changes are sorted by Path.
func (r *Repo) Diff(ctx context.Context, from, to string) ([]Change, error) {
	if !r.IsGit {
		return nil, fmt.Errorf("diff in %s: %w", r.Root, ErrNotGit)
	}
	if to == "" {
		if to = r.Head; to == "" {
			return nil, fmt.Errorf("diff in %s: %w", r.Root, ErrNoCommits)
		}
	}
	if to == WorkingTreeRev || from == WorkingTreeRev {
		return nil, fmt.Errorf("diff %s..%s: Diff compares commits; compare WorkingTree's blob ids for the working tree", from, to)
	}
	revs := []string{to}
	if from != "" {
		revs = []string{from, to}
	}
	shas, err := r.resolveCommits(ctx, revs...)
	if err != nil {
		return nil, err
	}
	var changes []Change
	if from == "" {
		err = streamGit(ctx, r.Root, func(rec []byte) error {
			f, mode, err := parseLsTree(rec)
			if err != nil {
				return err
			}
			changes = append(changes, Change{Kind: Added, Path: f.Path, BlobSHA: f.BlobSHA, Mode: mode})
			return nil
		}, "ls-tree", "-r", "-l", "-z", "--full-tree", shas[0])
		if err != nil {
			return nil, fmt.Errorf("diff ..%s: %w", to, err)
		}
		return changes, nil
	}

	// Raw records: ":<mode> <mode> <sha> <sha> <status>" NUL path NUL, and a
	// second path NUL for renames and copies.
	var (
		pending Change
		want    int      // paths expected for pending
		got     []string // paths read so far
	)
	err = streamGit(ctx, r.Root, func(rec []byte) error {
		if want == 0 {
			c, n, err := parseRaw(rec)
			pending, want = c, n
			return err
		}
		if got = append(got, string(rec)); len(got) < want {
			return nil
		}
		pending.Path = got[len(got)-1]
		if pending.Kind == Renamed {
			pending.OldPath = got[0]
		}
		changes = append(changes, pending)
		want, got = 0, got[:0]
		return nil
	}, "diff-tree", "-r", "-z", "-M", "--no-commit-id", "--no-ext-diff", shas[0], shas[1])
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", from, to, err)
	}
	if want != 0 {
		return nil, fmt.Errorf("diff %s..%s: git diff-tree output ends mid-record", from, to)
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

// parseRaw parses the metadata of a raw diff record and says how many
// paths follow it.
func parseRaw(rec []byte) (Change, int, error) {
	f := bytes.Fields(rec)
	if len(f) != 5 || len(f[0]) < 2 || f[0][0] != ':' || len(f[4]) == 0 {
		return Change{}, 0, fmt.Errorf("git diff-tree: malformed record %q", rec)
	}
	newMode, newSHA := string(f[1]), string(f[3])
	if strings.Trim(newSHA, "0") == "" || newMode == "160000" {
		newSHA = ""
	}
	c := Change{BlobSHA: newSHA, Mode: newMode}
	switch f[4][0] {
	case 'A', 'C': // copies are not detected (no -C), but read as additions
		c.Kind = Added
	case 'M', 'T':
		c.Kind = Modified
	case 'D':
		c.Kind, c.BlobSHA, c.Mode = Deleted, "", ""
	case 'R':
		c.Kind = Renamed
	default:
		return Change{}, 0, fmt.Errorf("git diff-tree: unexpected status %q", f[4])
	}
	if f[4][0] == 'R' || f[4][0] == 'C' {
		return c, 2, nil // source path, then destination path
	}
	return c, 1, nil
}

// resolveCommits turns revisions into commit ids with one `git rev-parse`;
// only when that fails does it look at each to say which one is unknown.
func (r *Repo) resolveCommits(ctx context.Context, revs ...string) ([]string, error) {
	args := []string{"rev-parse"}
	for _, rev := range revs {
		if err := checkRev(rev); err != nil {
			return nil, err
		}
		args = append(args, rev+"^{commit}")
	}
	args = append(args, "--")
	out, err := runGit(ctx, r.Root, args...)
	if err == nil {
		// rev-parse echoes the "--" that keeps it from reading paths.
		shas := slices.DeleteFunc(strings.Fields(string(out)), func(s string) bool { return s == "--" })
		if len(shas) == len(revs) {
			return shas, nil
		}
		return nil, fmt.Errorf("resolve %s: unexpected git rev-parse output %q", strings.Join(revs, " "), out)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("resolve %s: %w", strings.Join(revs, " "), ctx.Err())
	}
	var ge *GitError
	if !errors.As(err, &ge) {
		return nil, fmt.Errorf("resolve %s: %w", strings.Join(revs, " "), err)
	}
	for _, rev := range revs {
		_, err := runGit(ctx, r.Root, "rev-parse", "-q", "--verify", rev+"^{commit}")
		if exitCode(err) == 1 {
			return nil, fmt.Errorf("%w %s in %s", ErrUnknownCommit, rev, r.Root)
		}
	}
	return nil, fmt.Errorf("resolve %s: %w", strings.Join(revs, " "), err)
}

// Dirty reports whether the working tree differs from HEAD: a tracked file
// modified, staged, deleted or renamed, or an untracked file that is not
// ignored. Submodules are not looked into (the index skips them anyway).
// It runs `git status --porcelain -z` without taking the index lock. When
// git fails (a corrupt index), or reports no change but could not look
// everywhere (an unreadable directory), it returns an error rather than a
// clean answer that may be wrong.
func (r *Repo) Dirty(ctx context.Context) (bool, error) {
	if !r.IsGit {
		return false, fmt.Errorf("status of %s: %w", r.Root, ErrNotGit)
	}
	out, stderr, err := runGitStderr(ctx, r.Root, "status", "--porcelain", "-z", "--untracked-files=normal", "--ignore-submodules=all")
	if err != nil {
		return false, fmt.Errorf("cannot tell whether %s has uncommitted changes (see `git status` there): %w", r.Root, err)
	}
	if len(out) > 0 {
		return true, nil
	}
	if w := incompleteStatus(stderr); w != "" {
		return false, fmt.Errorf("cannot tell whether %s has uncommitted changes: git status could not look everywhere: %s", r.Root, w)
	}
	return false, nil
}

// incompleteStatus returns the lines of a successful `git status`'s stderr
// that mean parts of the tree went unexamined; line-ending warnings and the
// like are not among them.
func incompleteStatus(stderr string) string {
	var bad []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "error:") || strings.HasPrefix(line, "fatal:") ||
			strings.Contains(line, "could not open directory") || strings.Contains(line, "unable to") {
			bad = append(bad, strings.TrimSpace(line))
		}
	}
	return strings.Join(bad, "; ")
}
