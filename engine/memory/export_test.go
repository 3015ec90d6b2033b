package memory

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Exported for the tests of package memory_test.
var (
	BriefingSimilarSQL = briefingSimilarSQL
	CandidatesSQL      = candidatesSQL
)

// PinAnchorsForTest finds, resolves and pins the anchors of in on the existing
// memory id, in a transaction of its own: the anchor stage of Add alone.
func (s *Store) PinAnchorsForTest(ctx context.Context, id string, in NewMemory) ([]Anchor, error) {
	var out []Anchor
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = s.pinAnchors(ctx, tx, id, in)
		return err
	})
	return out, err
}

// SetExactPoolMaxForTest lowers the store's bound of exact pools and the
// candidates the sketch picks past it (runpool.go), so that a test reaches the
// sketch's path with a few hundred memories.
func (s *Store) SetExactPoolMaxForTest(n, candidates int) {
	s.exactPoolMax, s.sketchCandidates = n, candidates
}
