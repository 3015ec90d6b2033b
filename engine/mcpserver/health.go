package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
type notIndexedError struct{ root string }

func (e notIndexedError) Error() string {
	return fmt.Sprintf("not indexed: %s has never been indexed, so there is nothing to search: run `spelunk index %s` "+
		"(or call index_file on a file to index the working tree now), then call again", e.root, e.root)
}

// requireIndexed fails with notIndexedError until an index run has finished for
// the repository. Once one has, the answer is kept: an index is never un-done.
func (s *Server) requireIndexed(ctx context.Context) error {
	b := s.repo(ctx)
	if b.indexed.Load() {
		return nil
	}
	var done bool
	err := s.cfg.DB.Pool.QueryRow(ctx, `SELECT last_indexed_at IS NOT NULL FROM repositories WHERE id = $1`, b.ID).Scan(&done)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("check the repository is indexed: %w", err)
	}
	if !done {
		return notIndexedError{b.Root}
	}
	b.indexed.Store(true)
	return nil
}

// indexedOnly wraps a code tool that reads the index: it refuses to answer from
// an index that was never built.
func indexedOnly[In, Out any](s *Server, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) func(context.Context, *mcp.CallToolRequest, In) (Out, error) {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error) {
		if err := s.requireIndexed(ctx); err != nil {
			var zero Out
			return zero, err
		}
		return h(ctx, req, in)
	}
}
