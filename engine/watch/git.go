package watch

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spelunkhq/spelunk/engine/source"
)

// gitState is what the watcher follows of the git directory. HEAD moves when
// its file is rewritten (checkout, a commit on a detached HEAD) or when the
// branch it names moves (commit, pull, rebase, reset): a loose ref file in
// refs/heads, packed-refs after a pack, or the reftable files. Each of those
// directories is watched (not recursively, and not the objects or logs that
// every command writes); an event in one only makes the watcher read HEAD
// again, and a run follows when the commit changed.
type gitState struct {
	gitDir    string // the work tree's own: HEAD, index.lock
	commonDir string // shared by linked worktrees: packed-refs, refs/, reftable/
	head      string // the commit last seen
	branch    string // the branch last seen; "" when detached
	watched   map[string]bool
}

func (s *session) watchGit(ctx context.Context, repo *source.Repo) error {
	gd, cd, err := repo.GitDirs(ctx)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	s.git = &gitState{gitDir: gd, commonDir: cd, head: repo.Head, branch: repo.Branch, watched: map[string]bool{}}
	dirs := []string{gd, cd}
	if fi, err := os.Stat(filepath.Join(cd, "reftable")); err == nil && fi.IsDir() {
		dirs = append(dirs, filepath.Join(cd, "reftable"))
	}
	for _, d := range dirs {
		if err := s.addGitWatch(d); err != nil {
			return err
		}
	}
	s.watchRef()
	return nil
}

func (s *session) addGitWatch(dir string) error {
	if s.git.watched[dir] {
		return nil
	}
	if err := s.fsw.Add(dir); err != nil {
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	s.git.watched[dir] = true
	return nil
}

// watchRef watches the directory of the branch's loose ref, or its nearest
// existing parent under refs/heads (a ref only in packed-refs gets its file,
// and maybe its directory, at the next commit).
func (s *session) watchRef() {
	if s.git.branch == "" {
		return
	}
	heads := filepath.Join(s.git.commonDir, "refs", "heads")
	dir := filepath.Join(heads, filepath.FromSlash(path.Dir(s.git.branch)))
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			if err := s.addGitWatch(dir); err != nil {
				s.warn(err)
			}
			return
		}
		if dir == heads || !strings.HasPrefix(dir, heads) {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// isGitEvent reports whether name, an event's path, may mean HEAD moved.
// Lock files come and go around every ref update; the rename of the lock
// onto the ref is the event that counts.
func (g *gitState) isGitEvent(name string) bool {
	dir, base := filepath.Dir(name), filepath.Base(name)
	if !g.watched[dir] {
		return false
	}
	switch {
	case strings.HasSuffix(base, ".lock"):
		return false
	case dir == g.gitDir || dir == g.commonDir:
		return base == "HEAD" || base == "packed-refs"
	}
	return true // refs/heads/..., reftable/
}

// refreshHead reads HEAD again; when the commit changed, the next run is one
// of the whole tree.
func (s *session) refreshHead(ctx context.Context) error {
	repo, err := source.Open(ctx, s.root)
	if err != nil {
		return fmt.Errorf("watch: read HEAD: %w", err)
	}
	defer repo.Close()
	g := s.git
	if repo.Head != g.head {
		reason := "HEAD moved to " + short(repo.Head)
		if repo.Branch != "" {
			reason += " (" + repo.Branch + ")"
		}
		s.pend.setWhole(reason)
		s.pend.whole = reason // the most telling reason of all
	}
	g.head, g.branch = repo.Head, repo.Branch
	s.watchRef()
	return nil
}

func short(sha string) string {
	if sha == "" {
		return "(no commit)"
	}
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
