// Package source tells what files a repository has and how they changed.
//
// It works on git repositories through git plumbing commands (one process per
// listing, NUL-separated output, plus a long-lived `git cat-file --batch` for
// reading content) and on plain directories through a walk that honours
// .gitignore files. Every file comes back with a stable content id (its git
// blob SHA) and, when it should not be indexed, the reason why.
package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// WorkingTreeRev names the files as they are on disk rather than at a commit.
const WorkingTreeRev = "working-tree"

// Errors a caller is expected to test for with errors.Is.
var (
	// ErrNoCommits reports a git repository whose HEAD has no commit yet.
	ErrNoCommits = errors.New("repository has no commits yet")
	// ErrUnknownCommit reports a revision the repository does not have, for
	// instance a previously indexed commit lost to a history rewrite or beyond
	// a shallow clone's boundary; the caller should fall back to a full scan.
	ErrUnknownCommit = errors.New("unknown commit")
	// ErrNotGit reports an operation that needs git on a plain directory.
	ErrNotGit = errors.New("not a git repository")
	// ErrSystemDir reports a directory Open refuses without
	// OpenOptions.AllowSystemDirs: /, /proc, /sys, /dev or a path under the
	// last three, where files are endless, blocking or have side effects.
	ErrSystemDir = errors.New("a system directory")
)

// OpenOptions adjusts OpenWith.
type OpenOptions struct {
	// AllowSystemDirs opens / and the pseudo file systems (/proc, /sys,
	// /dev) anyway; their special files are still skipped, never read.
	AllowSystemDirs bool
}

// Repo is a repository opened by Open: a git work tree or a plain directory.
// Its fields describe the repository as it was when opened. A Repo may hold a
// background git process for Read; Close releases it.
type Repo struct {
	Root    string // absolute, symlinks resolved
	IsGit   bool
	Head    string // commit SHA; "" when there are no commits or no git
	Branch  string // short branch name; "" when HEAD is detached or no git
	Shallow bool

	objectFormat string // "sha1" or "sha256": how blob ids are computed

	mu    sync.Mutex
	blobs *BlobReader // started by the first Read at a commit
}

// Open opens the repository containing dir. When dir is inside a git work
// tree (possibly in a subdirectory) Root is the top level of that work tree;
// otherwise dir itself is opened as a plain directory. A repository without
// commits, a detached HEAD and a shallow clone are all fine. When the git
// binary is not installed every directory is opened as a plain directory.
// A system directory is refused with an error matching ErrSystemDir.
func Open(ctx context.Context, dir string) (*Repo, error) {
	return OpenWith(ctx, dir, OpenOptions{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, dir string, o OpenOptions) (*Repo, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open repository: %w", &notExistError{path: dir})
	case err != nil:
		return nil, fmt.Errorf("open repository: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("open repository: %s is not a directory", dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	if err := checkSystemDir(real, o); err != nil {
		return nil, err
	}

	r := &Repo{Root: real, objectFormat: "sha1"}
	out, err := runGit(ctx, real, "rev-parse", "--show-toplevel", "--is-shallow-repository", "--show-object-format")
	if err != nil {
		var ge *GitError
		switch {
		case errors.Is(err, errGitMissing):
			return r, nil
		case errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository"):
			return r, nil
		case errors.As(err, &ge) && strings.Contains(ge.Stderr, "must be run in a work tree"):
			return nil, fmt.Errorf("open repository: %s is a git directory or bare repository, not a work tree", dir)
		case ctx.Err() != nil:
			return nil, fmt.Errorf("open repository %s: %w", dir, ctx.Err())
		}
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 2 || lines[0] == "" {
		return nil, fmt.Errorf("open repository %s: unexpected git rev-parse output %q", dir, out)
	}
	top, err := filepath.EvalSymlinks(filepath.FromSlash(lines[0]))
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	if err := checkSystemDir(top, o); err != nil { // a repository at / (dotfiles)
		return nil, fmt.Errorf("%s is inside the git repository at %s: %w", dir, top, err)
	}
	r.Root = top
	r.IsGit = true
	r.Shallow = lines[1] == "true"
	if len(lines) > 2 && lines[2] != "" {
		r.objectFormat = lines[2]
	}

	// An unborn branch makes `rev-parse --verify` exit 1 with no output.
	out, err = runGit(ctx, top, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	switch {
	case err == nil:
		r.Head = strings.TrimSpace(string(out))
	case exitCode(err) == 1:
	default:
		return nil, fmt.Errorf("open repository %s: resolve HEAD: %w", dir, err)
	}
	// A detached HEAD makes `symbolic-ref -q` exit 1 with no output.
	out, err = runGit(ctx, top, "symbolic-ref", "-q", "HEAD")
	switch {
	case err == nil:
		r.Branch = strings.TrimPrefix(strings.TrimSpace(string(out)), "refs/heads/")
	case exitCode(err) == 1:
	default:
		return nil, fmt.Errorf("open repository %s: read branch: %w", dir, err)
	}
	return r, nil
}

// Close stops the background git process started by Read, if any. The Repo
// stays usable: a later Read starts a new one.
func (r *Repo) Close() error {
	r.mu.Lock()
	b := r.blobs
	r.blobs = nil
	r.mu.Unlock()
	if b == nil {
		return nil
	}
	return b.Close()
}

// notExistError reports a missing directory in plain words while still
// matching fs.ErrNotExist.
type notExistError struct{ path string }

func (e *notExistError) Error() string        { return e.path + " does not exist" }
func (e *notExistError) Is(target error) bool { return target == fs.ErrNotExist }

// Pin makes the repository read the commit rev instead of HEAD: Files, Read and
// the diff helpers then see that commit's tree, and Branch is cleared. It is how
// an index is built at a past commit without touching the work tree.
func (r *Repo) Pin(ctx context.Context, rev string) error {
	if !r.IsGit {
		return fmt.Errorf("index at %s: %s is not a git repository", rev, r.Root)
	}
	shas, err := r.resolveCommits(ctx, rev)
	if err != nil {
		return err
	}
	r.Head, r.Branch = shas[0], ""
	return nil
}

// systemDirs hold pseudo files (endless, blocking on read, or with side
// effects such as /proc/kmsg draining the kernel log): never indexed unless
// asked for.
var systemDirs = []string{"/proc", "/sys", "/dev"}

// checkSystemDir refuses real (absolute, symlinks resolved) when it is a
// file system root or inside one of systemDirs.
func checkSystemDir(real string, o OpenOptions) error {
	if o.AllowSystemDirs {
		return nil
	}
	refuse := filepath.Dir(real) == real // "/", or a volume root
	for _, d := range systemDirs {
		d = filepath.FromSlash(d)
		if real == d || strings.HasPrefix(real, d+string(filepath.Separator)) {
			refuse = true
		}
	}
	if refuse {
		return fmt.Errorf("refusing to index %s: %w (use --force to index it anyway)", real, ErrSystemDir)
	}
	return nil
}
