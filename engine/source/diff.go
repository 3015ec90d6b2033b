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
	out, err := r.status(ctx, "normal")
	return len(out) > 0, err
}

// Changes lists the paths git status reports as differing from HEAD, sorted:
// tracked files modified, staged or deleted, both names of a staged rename or
// copy, and every untracked file that is not ignored (one by one, not as
// their directory; a nested repository as its directory, without the
// trailing slash). Files it does not list are as committed, so a check of
// the working tree against the index need look only at these (and at what
// the index holds from the working tree). It fails as Dirty does.
func (r *Repo) Changes(ctx context.Context) ([]string, error) {
	out, err := r.status(ctx, "all")
	if err != nil {
		return nil, err
	}
	var paths []string
	recs := strings.Split(string(out), "\x00")
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if len(rec) < 4 || rec[2] != ' ' {
			continue // the empty tail after the last NUL
		}
		paths = append(paths, strings.TrimSuffix(rec[3:], "/"))
		if (rec[0] == 'R' || rec[0] == 'C') && i+1 < len(recs) {
			i++ // the name it was renamed or copied from
			paths = append(paths, recs[i])
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
}

// status runs `git status --porcelain -z` with the given untracked-files
// mode, failing when git fails or reports nothing while it could not look
// everywhere.
func (r *Repo) status(ctx context.Context, untracked string) ([]byte, error) {
	if !r.IsGit {
		return nil, fmt.Errorf("status of %s: %w", r.Root, ErrNotGit)
	}
	out, stderr, err := runGitStderr(ctx, r.Root, "status", "--porcelain", "-z", "--untracked-files="+untracked, "--ignore-submodules=all")
	if err != nil {
		return nil, fmt.Errorf("cannot tell whether %s has uncommitted changes (see `git status` there): %w", r.Root, err)
	}
	if len(out) > 0 {
		return out, nil
	}
	if w := incompleteStatus(stderr); w != "" {
		return nil, fmt.Errorf("cannot tell whether %s has uncommitted changes: git status could not look everywhere: %s", r.Root, w)
	}
	return nil, nil
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
