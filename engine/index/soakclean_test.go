package index_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// cleanSnap is a clean index of one tree: its rows and the hashes anchors read.
type cleanSnap struct {
	rows   []string
	hashes map[string][]string
}

// cleanCache keeps the clean snapshots of the last trees seen, by tree: the
// commit, and with the working tree the tree object of every file git would
// add (a step that reverts, or switches back, meets a tree seen before).
type cleanCache struct {
	max   int
	order []string
	snaps map[string]cleanSnap
	hits  int
}

func newCleanCache(max int) *cleanCache { return &cleanCache{max: max, snaps: map[string]cleanSnap{}} }

// get is the snapshot kept for key.
func (c *cleanCache) get(key string) (cleanSnap, bool) {
	s, ok := c.snaps[key]
	if ok {
		c.hits++
	}
	return s, ok
}

// put keeps s for key, dropping the oldest beyond the cache's size.
func (c *cleanCache) put(key string, s cleanSnap) {
	if _, ok := c.snaps[key]; ok {
		return
	}
	if len(c.order) >= c.max {
		delete(c.snaps, c.order[0])
		c.order = c.order[1:]
	}
	c.order, c.snaps[key] = append(c.order, key), s
}

// treeKey names what a run of root indexes: HEAD, and with the working tree
// the tree git would write of every file it would add (through an index file
// of its own, so the repository's is untouched).
func treeKey(t *testing.T, root string, workingTree bool) string {
	head := indextest.Git(t, root, "rev-parse", "HEAD")
	if !workingTree {
		return head
	}
	tmp := filepath.Join(t.TempDir(), "index")
	if data, err := os.ReadFile(filepath.Join(root, ".git", "index")); err == nil {
		_ = os.WriteFile(tmp, data, 0o644)
	}
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = root, append(os.Environ(), "GIT_INDEX_FILE="+tmp)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("add", "-A")
	return head + " " + run("write-tree")
}

// cleanSnapshot indexes root from scratch into db (under a key of its own,
// dropped after) and returns its rows and anchor hashes.
func cleanSnapshot(t *testing.T, db *pg.DB, root string, workingTree bool) cleanSnap {
	t.Helper()
	ctx, began := context.Background(), time.Now()
	sum, err := index.New(db, hashing()).Index(ctx, root, index.Options{WorkingTree: workingTree, StoreAs: "clean:" + root})
	if err != nil {
		t.Fatalf("clean index: %v", err)
	}
	indexed := time.Now()
	snap := cleanSnap{rows: indextest.Rows(t, db, sum.RepositoryID), hashes: indextest.AnchorHashes(t, db, sum.RepositoryID)}
	read := time.Now()
	defer func() {
		if os.Getenv("SPELUNK_SOAK_TRACE") != "" {
			t.Logf("clean: index %v, rows %v, drop %v", indexed.Sub(began).Round(time.Millisecond),
				read.Sub(indexed).Round(time.Millisecond), time.Since(read).Round(time.Millisecond))
		}
	}()
	for _, table := range []string{"edges", "postings", "symbol_embeddings", "symbols", "files", "repositories"} {
		col := "repository_id"
		if table == "repositories" {
			col = "id"
		}
		if _, err := db.Pool.Exec(ctx, `DELETE FROM `+table+` WHERE `+col+` = $1`, sum.RepositoryID); err != nil {
			t.Fatalf("drop the clean index: %v", err)
		}
	}
	return snap
}

// addAnchored writes n memories, each anchored to a definition of the index
// picked at random (and some to a whole file too), as an agent would write
// them about code it read; it returns how many it wrote.
func addAnchored(t *testing.T, r *soakRun, n int) int {
	ctx := context.Background()
	rows, err := r.db.Pool.Query(ctx, `SELECT path, start_line FROM symbols
		WHERE repository_id = $1 AND kind NOT IN ('module', 'block', 'part', 'field') ORDER BY path, start_line`, r.repoID)
	if err != nil {
		t.Fatal(err)
	}
	var defs []string
	for rows.Next() {
		var p string
		var line int
		if err := rows.Scan(&p, &line); err != nil {
			t.Fatal(err)
		}
		defs = append(defs, p+":"+strconv.Itoa(line))
	}
	if rows.Close(); rows.Err() != nil || len(defs) == 0 {
		return 0
	}
	st := memory.New(r.db, r.repoID, memory.Options{Embedder: hashing()})
	wrote := 0
	for range n {
		anchors := []string{defs[r.rng.IntN(len(defs))]}
		if r.rng.IntN(3) == 0 {
			anchors = append(anchors, strings.Split(anchors[0], ":")[0])
		}
		text := fmt.Sprintf("soak note %d: the contract of this code was agreed in review %d", r.rng.IntN(1e6), r.rng.IntN(1e6))
		if _, err := st.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "soak", Text: text, Anchors: anchors}); err != nil {
			t.Fatalf("memory anchored to %v: %v", anchors, err)
		}
		wrote++
	}
	return wrote
}

// shrink leaves changes out of the first failing sequence while it still
// fails, within a budget of replays (kills land at other points each time:
// a shrunk sequence may not fail every time).
func (s *soak) shrink(t *testing.T, f *soakFailure, ops []indextest.Op) []int {
	keep := make([]int, f.step+1)
	for i := range keep {
		keep[i] = i
	}
	budget := 12
	for chunk := len(keep) / 2; chunk >= 1 && budget > 0; chunk /= 2 {
		for start := 0; start < len(keep) && budget > 0; {
			try := append(append([]int{}, keep[:start]...), keep[min(start+chunk, len(keep)):]...)
			budget--
			failed := false
			t.Run("shrink", func(t *testing.T) { _, g := s.sequence(t, f.repo, f.seed, pick(ops, try)); failed = g != nil })
			if len(try) > 0 && failed {
				keep = try
				continue
			}
			start += chunk
		}
	}
	return keep
}

// replay runs SPELUNK_SOAK_REPLAY=repo@seed:i,j,...: the changes kept of a
// seed's sequence (the seed's first SPELUNK_SOAK_SEQ changes).
func (s *soak) replay(t *testing.T, p soakPlan) {
	repo, rest, _ := strings.Cut(p.replay, "@")
	seed, keep := parseReplay(t, rest)
	ops := indextest.RealOps(seed, max(p.seq, maxKept(keep)+1))
	if _, f := s.sequence(t, repo, seed, pick(ops, keep)); f != nil {
		t.Fatal(f.what)
	}
}
