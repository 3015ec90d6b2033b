package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// openDB resolves the database (flag, env, else the embedded cluster started on
// demand), migrates it and opens the pool for the tenant.
func openDB(ctx context.Context, g *globals) (*pg.DB, error) {
	return openDBConns(ctx, g, 0)
}

// oneShotConns caps the pool of a command that runs one search or lookup and
// exits. Every connection is a new PostgreSQL backend, 6-10 ms of server CPU
// before its first query; a search's five channels on two connections instead
// of four cost ~15 ms less of it, on a machine whose two cores they share anyway.
const oneShotConns = 2

// openDBConns is openDB with the pool capped at maxConns (0: pgxpool's default).
func openDBConns(ctx context.Context, g *globals, maxConns int32) (*pg.DB, error) {
	url, _, err := pg.Resolve(ctx, g.db)
	if err != nil {
		return nil, err
	}
	return pg.Open(ctx, pg.Options{URL: url, Tenant: g.tenant, MaxConns: maxConns, OnMigration: sayMigration})
}

// sayMigration tells the person waiting that the database's schema is being
// upgraded: a migration rewriting a large index's tables takes minutes.
func sayMigration(version int, name string) {
	fmt.Fprintf(os.Stderr, "spelunk: upgrading the database (migration %04d_%s); on a large index this can take minutes\n", version, name)
}

// repoRoot is --repo, else the git top level of the current directory, else the
// current directory itself. The result is absolute with symlinks resolved, the key
// under which the repository is registered.
func repoRoot(ctx context.Context, g *globals) (string, error) {
	if len(g.repos) > 1 {
		return "", usagef("--repo is given %d times; only spelunk mcp, spelunk search and the UI (bare spelunk) take several", len(g.repos))
	}
	dir := g.repo
	if dir == "" {
		var err error
		if dir, err = gitTopLevel(ctx); err != nil {
			return "", err
		}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("repository %s does not exist", dir)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("repository %s is not a directory", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// gitTopLevel is the work tree holding the current directory, else the current
// directory. It looks for .git upwards itself, as git does, and runs `git
// rev-parse` only when the environment steers git's discovery: starting git cost
// a CLI search 4-10 ms of its start-up.
func gitTopLevel(ctx context.Context) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	steered := os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" || os.Getenv("GIT_CEILING_DIRECTORIES") != ""
	if !steered {
		for dir := wd; ; {
			if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return wd, nil
	}
	return strings.TrimSpace(string(out)), nil
}

// openForIndexing resolves the repository, the embedder (printing a fallback note
// on a terminal run) and the database: what every command that may index needs.
func openForIndexing(ctx context.Context, g *globals) (string, embed.Embedder, *pg.DB, error) {
	root, err := repoRoot(ctx, g)
	if err != nil {
		return "", nil, nil, err
	}
	emb, note, err := g.embed.embedder()
	if err != nil {
		return "", nil, nil, err
	}
	if note != "" && !g.json {
		fmt.Fprintln(os.Stderr, note)
	}
	db, err := openDB(ctx, g)
	if err != nil {
		return "", nil, nil, err
	}
	return root, emb, db, nil
}
