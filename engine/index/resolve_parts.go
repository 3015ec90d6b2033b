package index

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

// A full pass decides the edges on several connections at once, each the
// edges of its share of the files, so the server's cores share the work: at
// $GOROOT/src the steps ran ~20 s on one backend while the other core, after
// the HNSW build beside it, had nothing to do (issue 39).
//
// What makes a share's decisions the same as one pass's: every step decides an
// edge from the edge itself, the repository's definitions (which each
// connection collects whole) and stored rows, never from another edge's
// decision in this run, with one exception: a Python name a package
// re-exports reads the decision of the reference edge in its __init__.py
// (resolve_names.go). Every Python file is therefore in the first share.
//
// The shares commit nothing: the other connections copy their decisions into
// the first one's session tables, which writes them all in its transaction.
// What the steps read from the edges that this run changes first, the links
// of the imports to files and, after an interrupted run, the forgotten
// decisions, is committed before, so every connection sees it. Both are what
// a clean index holds at this point, and the repository stays marked as not
// fresh until the run completes.

// defaultResolveParts is how many connections a full pass decides on: the
// embedded cluster's machine has two cores or more (more shares than cores
// would only contend), and a test may ask for others (SetResolveParts).
const defaultResolveParts = 2

// partMark marks the full pass's branch of the affected edges, where a share
// adds its condition (inPart).
const partMark = ` /*part*/`

// inPart returns sql limited to share k of the files.
func inPart(sql string, k, parts int) string {
	return strings.ReplaceAll(sql, partMark, fmt.Sprintf(`
	      AND x.file_id IN (SELECT pf.id FROM files pf WHERE pf.repository_id = $1
	                        AND CASE WHEN pf.language = 'python' THEN 0 ELSE pf.id %% %d END = %d)`, parts, k))
}

// partTables are the session tables a share hands to the first: its
// decisions and the edges it found dangling.
var partTables = []string{"res_out", "res_dangling"}

// resolveInParts is resolveEdges' full pass on w.resolveParts connections.
func (w *writer) resolveInParts(ctx context.Context, reset bool) error {
	if err := w.prepareFullPass(ctx, reset); err != nil {
		return err
	}
	// Every share's connection first: a share that waited for one while
	// another share held its own could wait on the share that waits for it.
	conns := make([]*pgxpool.Conn, w.resolveParts)
	for k := range conns {
		c, err := w.db.Pool.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("resolve edges: connect share %d: %w", k+1, err)
		}
		defer c.Release()
		conns[k] = c
	}
	g, gctx := errgroup.WithContext(ctx)
	handed := make(chan [][]byte, w.resolveParts-1)
	for k := 1; k < w.resolveParts; k++ {
		g.Go(func() error {
			tables, err := w.decidePart(gctx, conns[k], k)
			if err != nil {
				return err
			}
			handed <- tables
			return nil
		})
	}
	g.Go(func() error {
		return pgx.BeginFunc(gctx, conns[0], func(tx pgx.Tx) error {
			w.edgesRewritten = false
			if err := w.decideShare(gctx, tx, 0); err != nil {
				return err
			}
			for k := 1; k < w.resolveParts; k++ {
				var tables [][]byte
				select {
				case tables = <-handed:
				case <-gctx.Done():
					return gctx.Err()
				}
				if err := copyIn(gctx, tx, tables); err != nil {
					return err
				}
			}
			b := &stepBatch{}
			b.queue("analyse the decisions", `ANALYZE res_out, res_dangling`)
			last := w.queueApply(b, true)
			return b.send(gctx, tx, last)
		})
	})
	return g.Wait()
}

// prepareFullPass commits what every share must see: after an interrupted
// run, every decision forgotten; the imports linked to the files they name.
func (w *writer) prepareFullPass(ctx context.Context, reset bool) error {
	return pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
		b := &stepBatch{}
		w.queueWorkTx(b)
		if reset {
			b.queue("forget every decision", resetEdges, w.repoID)
		}
		b.queue("link imports to files", linkImports(false), w.repoID)
		return b.send(ctx, tx, nil)
	})
}

// decidePart decides share k on conn, a connection of its own, in a transaction
// that only reads the repository, and returns its session tables (partTables,
// in PostgreSQL's binary copy format).
func (w *writer) decidePart(ctx context.Context, conn *pgxpool.Conn, k int) ([][]byte, error) {
	var tables [][]byte
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if err := w.decideShare(ctx, tx, k); err != nil {
			return err
		}
		for _, t := range partTables {
			var buf bytes.Buffer
			if _, err := tx.Conn().PgConn().CopyTo(ctx, &buf, "COPY "+t+" TO STDOUT (FORMAT binary)"); err != nil {
				return fmt.Errorf("resolve edges: hand over %s: %w", t, err)
			}
			tables = append(tables, buf.Bytes())
		}
		return nil
	})
	return tables, err
}

// decideShare runs the steps that decide share k's edges in tx, whose
// session tables then hold its decisions.
func (w *writer) decideShare(ctx context.Context, tx pgx.Tx, k int) error {
	if err := createResTables(ctx, tx); err != nil {
		return err
	}
	b := &stepBatch{}
	if k == 0 {
		// The share that writes holds the work lock (lock.go); the others
		// write nothing but their session tables.
		w.queueWorkTx(b)
	}
	w.queueScope(b, nil)
	for _, step := range decideSteps() {
		b.step(step.name, inPart(byKey(step.sql, false), k, w.resolveParts), w.repoID)
	}
	if err := b.send(ctx, tx, nil); err != nil {
		return fmt.Errorf("share %d of %d: %w", k+1, w.resolveParts, err)
	}
	return nil
}

// copyIn copies another share's session tables into tx's.
func copyIn(ctx context.Context, tx pgx.Tx, tables [][]byte) error {
	for i, t := range partTables {
		if _, err := tx.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(tables[i]), "COPY "+t+" FROM STDIN (FORMAT binary)"); err != nil {
			return fmt.Errorf("resolve edges: take over %s: %w", t, err)
		}
	}
	return nil
}
