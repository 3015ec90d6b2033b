package source

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
)

// WorkingFiles describes the given paths (slash-separated, relative to Root)
// as they are on disk, the way WorkingTree would list them, without listing
// the rest of the tree: present are the ones WorkingTree would include, gone
// the ones it would not (deleted, ignored, or inside a pruned directory), so
// that an index of a few saved files costs a few files. In a git repository
// one `git ls-files` over just those paths decides what is tracked or
// untracked and not ignored; a plain directory keeps every existing path
// outside the pruned directories (its .gitignore files are not consulted
// here: a full run applies them).
func (r *Repo) WorkingFiles(ctx context.Context, paths []string, opts Options) (present []File, gone []string, err error) {
	paths = cleanPaths(paths)
	if len(paths) == 0 {
		return nil, nil, nil
	}
	listed := map[string]bool{}
	if r.IsGit {
		args := append([]string{"--literal-pathspecs", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--"}, paths...)
		err := streamGit(ctx, r.Root, func(rec []byte) error {
			listed[strings.TrimSuffix(string(rec), "/")] = true
			return nil
		}, args...)
		if err != nil {
			return nil, nil, fmt.Errorf("list %d changed files of %s: %w", len(paths), r.Root, err)
		}
	}
	fr := newFileReader(r.objectFormat)
	for _, p := range paths {
		if (r.IsGit && !listed[p]) || (!r.IsGit && inPrunedDir(p)) {
			gone = append(gone, p)
			continue
		}
		f, ok := fr.stat(ctx, r.Root, walkEntry{path: p}, opts)
		if !ok {
			gone = append(gone, p)
			continue
		}
		if f.Skip == SkipSubmodule && !r.IsGit {
			gone = append(gone, p) // a directory: its files come as paths of their own
			continue
		}
		present = append(present, f)
	}
	return present, gone, ctx.Err()
}

// cleanPaths drops empty, absolute and escaping paths and duplicates, sorted.
func cleanPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
		if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// inPrunedDir reports whether a path lies in a directory the plain walk never
// enters (.git, node_modules, ...).
func inPrunedDir(p string) bool {
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if prunedDirs[d] {
			return true
		}
	}
	return false
}

// HeadBlobs returns the blob ids the given paths have at HEAD (absent: not in
// the commit), with one `git ls-tree` over just those paths. A plain
// directory or a repository without commits has none.
func (r *Repo) HeadBlobs(ctx context.Context, paths []string) (map[string]string, error) {
	out := map[string]string{}
	paths = cleanPaths(paths)
	if !r.IsGit || r.Head == "" || len(paths) == 0 {
		return out, nil
	}
	args := append([]string{"--literal-pathspecs", "ls-tree", "-l", "-z", "--full-tree", r.Head, "--"}, paths...)
	err := streamGit(ctx, r.Root, func(rec []byte) error {
		f, _, err := parseLsTree(rec)
		if err != nil {
			return err
		}
		out[f.Path] = f.BlobSHA
		return nil
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read %d paths at %s: %w", len(paths), r.Head, err)
	}
	return out, nil
}
