package search

import (
	"context"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
)

// With the database gone every channel fails; the search must say so instead of
// answering an empty list, which reads as "nothing matches" (issue 11.6).
func TestSearchWithDatabaseGoneIsAnError(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	fx.DB.Pool.Close()
	for _, q := range []string{"IssueRefund", "how are refunds validated"} {
		resp, err := s.Search(context.Background(), q, Options{})
		if err == nil {
			t.Fatalf("%q: no error with the database closed, %d results", q, len(resp.Results))
		}
		if !strings.Contains(err.Error(), "no channel could answer") {
			t.Fatalf("%q: %v", q, err)
		}
	}
}
