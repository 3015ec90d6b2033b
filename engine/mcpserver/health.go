package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// pingTimeout bounds the check that tells an outage from an ordinary failure.
const pingTimeout = 5 * time.Second

// unavailable says whether the database can be reached; nil when it can. A tool
// that failed, or whose search channels all failed, asks it so that an outage is
// reported as one instead of as "no results". The pool opens fresh connections
// on the next acquire, so the next call really does retry.
func (s *Server) unavailable(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pingTimeout)
	defer cancel()
	if err := s.cfg.DB.Pool.Ping(ctx); err != nil {
		return fmt.Errorf("database unavailable: %w; retrying on the next call", err)
	}
	return nil
}

// notIndexedError is a code tool called on a repository no index run has finished
// for: every answer would be empty, which reads as "no such code".
type notIndexedError struct {
	root string
	why  string // pg.Repository.Incomplete, when a run started and stopped
}

func (e notIndexedError) Error() string {
	if e.why != "" {
		return fmt.Sprintf("not indexed: %s (%s); run `spelunk index %s` (or call index_file on a file to index the working tree now), then call again",
			e.why, e.root, e.root)
	}
	return fmt.Sprintf("not indexed: %s has never been indexed, so there is nothing to search: run `spelunk index %s` "+
		"(or call index_file on a file to index the working tree now), then call again", e.root, e.root)
}

// indexState fails with notIndexedError until an index run has finished for
// the repository, and otherwise returns pg.Repository.Incomplete: "" unless
// the last run stopped before it finished (or is under way), when answers
// may be missing results (issue 36, 5).
func (s *Server) indexState(ctx context.Context) (string, error) {
	b := s.repo(ctx)
	var rec pg.Repository
	err := s.cfg.DB.Pool.QueryRow(ctx, `SELECT last_indexed_at, indexing_started FROM repositories WHERE id = $1`, b.ID).
		Scan(&rec.LastIndexedAt, &rec.IndexingStarted)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("check the repository is indexed: %w", err)
	}
	if rec.LastIndexedAt == nil {
		why := ""
		if rec.IndexingStarted != nil {
			why = rec.Incomplete()
		}
		return "", notIndexedError{b.Root, why}
	}
	b.indexed.Store(true)
	return rec.Incomplete(), nil
}

// indexedOnly wraps a code tool that reads the index: it refuses to answer from
// an index that was never built, and an answer from one whose last run did
// not finish carries index_incomplete (see warn).
func indexedOnly[In, Out any](s *Server, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) func(context.Context, *mcp.CallToolRequest, In) (Out, error) {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error) {
		var out Out
		why, err := s.readIndex(ctx, func() (err error) {
			out, err = h(ctx, req, in)
			return err
		})
		if err != nil {
			var zero Out
			return zero, err
		}
		warn(ctx, why)
		return out, nil
	}
}

// readIndex runs read, an answer from the index of the call's repository,
// and returns indexState's warning. Until a run has finished the state is
// asked first (the answer would be empty: notIndexedError); once one has,
// after the answer, so that the tool's own queries are the first to meet a
// database that went down (explain then names the outage).
func (s *Server) readIndex(ctx context.Context, read func() error) (string, error) {
	if !s.repo(ctx).indexed.Load() {
		why, err := s.indexState(ctx)
		if err != nil {
			return "", err
		}
		return why, read()
	}
	if err := read(); err != nil {
		return "", err
	}
	return s.indexState(ctx)
}

// warningKey holds the call's warning slot (addTool makes one per call).
type warningKey struct{}

// warn sets the warning of the call in ctx, which textResult adds to the
// result object as index_incomplete.
func warn(ctx context.Context, text string) {
	if slot, ok := ctx.Value(warningKey{}).(*string); ok && text != "" {
		*slot = text
	}
}
