package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// repoFlag is --repo: every value is kept (spelunk mcp and spelunk search serve
// several repositories), the first is g.repo for the commands that take one.
type repoFlag struct{ g *globals }

func (f repoFlag) String() string { return f.g.repo }
func (f repoFlag) Type() string   { return "string" }

func (f repoFlag) Set(v string) error {
	f.g.repos = append(f.g.repos, v)
	if f.g.repo == "" {
		f.g.repo = v
	}
	return nil
}

// repoRoots resolves every --repo and the repositories listed in reposFrom (one
// directory a line; # comments; relative to the file), dropping repeats; with
// none given, the one repository of repoRoot (the current git top level).
func repoRoots(ctx context.Context, g *globals, reposFrom string) ([]string, error) {
	dirs := append([]string(nil), g.repos...)
	if reposFrom != "" {
		listed, err := readReposFile(reposFrom)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, listed...)
	}
	if len(dirs) == 0 {
		root, err := repoRoot(ctx, &globals{repo: g.repo})
		if err != nil {
			return nil, err
		}
		return []string{root}, nil
	}
	var roots []string
	seen := map[string]bool{}
	for _, d := range dirs {
		root, err := repoRoot(ctx, &globals{repo: d})
		if err != nil {
			return nil, err
		}
		if !seen[root] {
			seen[root] = true
			roots = append(roots, root)
		}
	}
	return roots, nil
}

// readReposFile reads --repos-from: repository directories, one a line.
func readReposFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("--repos-from: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(filepath.Dir(path), line)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--repos-from %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, usagef("--repos-from %s lists no repository (one directory a line)", path)
	}
	return out, nil
}
