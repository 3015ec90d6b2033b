package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// addTree watches the directories roots (relative to the root; "" is the
// root itself) and every directory below them that the index would list,
// level by level: each level's candidates are checked against the ignore
// rules in one call, so an ignored tree (node_modules, build output) is
// never entered. Nested repositories (a .git inside) and symbolic links are
// not followed. With collect it returns the files found on the way: in a
// directory that just appeared they may have been written before its watch.
//
// A directory is watched before it is read, so a file created meanwhile is
// seen by the scan, by an event, or by both.
func (s *session) addTree(ctx context.Context, roots []string, collect bool) ([]string, error) {
	var files []string
	level := roots
	for len(level) > 0 {
		cands := s.candidates(level)
		var ig map[string]bool
		if ask := withoutRoot(cands); len(ask) > 0 {
			var err error
			if ig, err = s.repo.Ignored(ctx, ask); err != nil {
				s.warn(err) // watch too much rather than miss changes
				ig = nil
			}
		}
		var next []string
		for _, d := range cands {
			if ig[d] {
				continue
			}
			found, sub, err := s.watchDir(d, collect)
			if err != nil {
				return nil, err
			}
			files = append(files, found...)
			next = append(next, sub...)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		level = next
	}
	return files, nil
}

// candidates keeps the directories of level not yet watched that are real
// directories and not nested repositories (the root is one, of course).
func (s *session) candidates(level []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range level {
		if s.dirs[d] || seen[d] {
			continue
		}
		seen[d] = true
		fi, err := os.Lstat(s.abs(d))
		if err != nil || !fi.IsDir() {
			continue
		}
		if d != "" {
			if _, err := os.Lstat(filepath.Join(s.abs(d), ".git")); err == nil {
				continue // a nested repository or submodule: not in this index
			}
		}
		out = append(out, d)
	}
	return out
}

func withoutRoot(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// watchDir adds a watch on d and lists it: its files (when collect) and its
// subdirectories. A directory gone meanwhile is no error; running out of
// inotify watches is, with the setting that raises the limit.
func (s *session) watchDir(d string, collect bool) (files, subdirs []string, err error) {
	abs := s.abs(d)
	if err := s.fsw.Add(abs); err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			return nil, nil, nil
		case errors.Is(err, syscall.ENOSPC):
			return nil, nil, fmt.Errorf("watch %s: out of inotify watches after %d directories: raise the limit with `sysctl fs.inotify.max_user_watches=524288` (or run spelunk without the watcher)", s.root, len(s.dirs))
		}
		s.warn(fmt.Errorf("watch %s: %w", abs, err))
		return nil, nil, nil
	}
	s.dirs[d] = true
	entries, err := os.ReadDir(abs)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.warn(fmt.Errorf("watch: list %s: %w", abs, err))
		}
		return nil, nil, nil
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		rel := join(d, e.Name())
		switch {
		case e.IsDir():
			subdirs = append(subdirs, rel)
		case collect:
			files = append(files, rel)
		}
	}
	return files, subdirs, nil
}

// dropTree forgets rel and the directories below it (removed or moved away).
// The watches are removed explicitly: inotify keeps watching a moved
// directory's subdirectories under their old names otherwise.
func (s *session) dropTree(rel string) {
	for d := range s.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") || rel == "" {
			_ = s.fsw.Remove(s.abs(d)) // gone already, often
			delete(s.dirs, d)
		}
	}
}

// resync watches the tree again from scratch, after the ignore rules
// changed: a directory they now leave out stops being watched, one they let
// in starts. The run of the whole tree that follows sees every file.
func (s *session) resync(ctx context.Context) error {
	s.dropTree("")
	_, err := s.addTree(ctx, []string{""}, false)
	return err
}

// onEvent records a change of the working tree or of the git directory. It
// reports whether a run is now due.
func (s *session) onEvent(ev fsnotify.Event) bool {
	if s.git != nil && s.git.isGitEvent(ev.Name) {
		s.pend.touch()
		s.pend.gitEvent = true
		return true
	}
	rel, ok := s.rel(ev.Name)
	if !ok || rel == "" || ev.Op == fsnotify.Chmod || isGitPath(rel) {
		return false // a mode change is no change of content
	}
	p := &s.pend
	p.touch()
	if path.Base(rel) == ".gitignore" {
		p.setWhole(rel + " changed")
		p.resync = true
	}
	switch {
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		if s.dirs[rel] {
			// Its files' rows must go, and only a run of the whole tree
			// knows which they are.
			s.dropTree(rel)
			p.setWhole("directory " + rel + " removed or moved")
			return true
		}
		p.paths[rel] = true
	case ev.Has(fsnotify.Create):
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			p.newDirs[rel] = true
		} else {
			p.paths[rel] = true
		}
	default: // Write
		p.paths[rel] = true
	}
	return true
}

// rel is name relative to the root, slash-separated; false outside it.
func (s *session) rel(name string) (string, bool) {
	r, err := filepath.Rel(s.root, name)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	if r == "." {
		return "", true
	}
	return filepath.ToSlash(r), true
}

func (s *session) abs(rel string) string {
	if rel == "" {
		return s.root
	}
	return filepath.Join(s.root, filepath.FromSlash(rel))
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// isGitPath reports whether rel is a .git entry or inside one (a linked
// worktree's .git file, a nested repository's .git seen from its parent).
func isGitPath(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".git" {
			return true
		}
	}
	return false
}
