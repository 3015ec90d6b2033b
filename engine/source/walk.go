package source

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// prunedDirs are never entered by the plain-directory walk: version control
// metadata, dependency trees that a git repository would have ignored, and
// caches. (In a git repository the same directories are listed when they are
// tracked, and dependency trees are then skipped as "vendored".) "dist" and
// "build" are deliberately absent: too often they hold source (Go's go/build).
var prunedDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".bzr": true, "_darcs": true,
	"node_modules": true, "bower_components": true,
	"__pycache__": true, ".venv": true, ".tox": true, ".nox": true,
	".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
}

// walkEntry is a path found by the walk: a regular file, a symlink, or
// something else the reader will mark unreadable.
type walkEntry struct {
	path string // slash-separated, relative to the root
	skip string // a reason the walk already knows (a symlink's)
}

// walkPlain lists root like `git ls-files -co --exclude-standard` would if
// root were a repository: .gitignore files at every level are honoured and
// the directories in prunedDirs are not entered. Symbolic links are listed,
// never followed; one that points at a directory containing it is marked as
// a loop. A directory that cannot be read is listed as unreadable.
func walkPlain(ctx context.Context, root string) ([]walkEntry, error) {
	var out []walkEntry
	var walk func(dir string, rules []ignoreRule) error
	walk = func(dir string, rules []ignoreRule) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		abs := filepath.Join(root, filepath.FromSlash(dir))
		entries, err := os.ReadDir(abs)
		if err != nil {
			if dir == "" {
				return err
			}
			out = append(out, walkEntry{path: dir, skip: SkipUnreadable})
			return nil
		}
		for _, e := range entries {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				var buf bytes.Buffer
				if _, err := readFile(ctx, filepath.Join(abs, ".gitignore"), &buf, math.MaxInt64); err == nil {
					// A full slice expression makes append copy, so siblings
					// never see each other's rules.
					rules = append(rules[:len(rules):len(rules)], parseIgnore(dir, buf.Bytes())...)
				}
				break
			}
		}
		for _, e := range entries {
			name := e.Name()
			rel := name
			if dir != "" {
				rel = dir + "/" + name
			}
			isDir := e.IsDir()
			if isDir && prunedDirs[name] || name == ".git" { // .git is a file in worktrees and submodules
				continue
			}
			if ignoredHere(rules, rel, isDir) {
				continue
			}
			switch {
			case isDir:
				if err := walk(rel, rules); err != nil {
					return err
				}
			case e.Type()&fs.ModeSymlink != 0:
				out = append(out, walkEntry{path: rel, skip: symlinkReason(filepath.Join(abs, name))})
			default:
				out = append(out, walkEntry{path: rel})
			}
		}
		return nil
	}
	if err := walk("", nil); err != nil {
		return nil, err
	}
	return out, nil
}

// symlinkReason tells a symbolic link that would make a walk loop (it leads,
// possibly through other links, to a directory containing it, or it is part
// of a cycle of links) from an ordinary one.
func symlinkReason(abs string) string {
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return SkipSymlinkLoop
		}
		return SkipSymlink // dangling
	}
	if !fi.IsDir() {
		return SkipSymlink
	}
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return SkipSymlinkLoop
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return SkipSymlink
	}
	if parent == target || strings.HasPrefix(parent, target+string(filepath.Separator)) || target == string(filepath.Separator) {
		return SkipSymlinkLoop
	}
	return SkipSymlink
}
