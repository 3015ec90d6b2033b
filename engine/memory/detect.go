package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// maxCandidates bounds the pairs one write sends to the judge.
const maxCandidates = 20

// candidate is a live memory similar to the one being checked.
type candidate struct {
	ID         string    `db:"id"`
	Kind       Kind      `db:"kind"`
	Content    string    `db:"content"`
	Status     Status    `db:"status"`
	CreatedAt  time.Time `db:"created_at"`
	Similarity float64   `db:"similarity"`
}

// candidatesSQL finds the live memories of the project most similar to $2 (the
// pool, see poolSQL), then applies the gate, the status filter and the keep-both
// exemptions to that pool. A pair kept by "keep both" is exempt, and so is a later
// copy of either side (the same text re-learned by an agent): the exemption is
// looked up by the other side's content hash too.
//
//	$1 project  $2 vector  $3 threshold  $4 memory being checked  $5 excluded ids
//	$6 content hash of the memory being checked
func candidatesSQL(model string, dims int, iterative bool) string {
	return `
WITH ` + poolSQL(model, dims, iterative) + `
SELECT m.id::text AS id, m.kind, m.content, m.status, m.created_at, c.similarity
FROM pool c
JOIN memories m ON m.repository_id = $1 AND m.id = c.memory_id
WHERE c.similarity >= $3 AND m.id <> $4::uuid AND m.id <> ALL($5::uuid[])
	AND m.status IN ` + vectorStatuses + `
	AND NOT EXISTS (
		SELECT 1 FROM conflict_exemptions x
		JOIN memories o ON o.repository_id = $1
			AND o.id = CASE WHEN x.memory_a = m.id THEN x.memory_b ELSE x.memory_a END
		WHERE x.repository_id = $1 AND (x.memory_a = m.id OR x.memory_b = m.id)
			AND (o.id = $4::uuid OR o.content_hash = $6))
ORDER BY c.similarity DESC
LIMIT ` + strconv.Itoa(maxCandidates)
}

// detection is what checking one memory found.
type detection struct {
	conflictID string
	corrected  []string
	// disputed is the memory checked, as its dispute left it (when conflictID
	// is set).
	disputed Memory
}

// contradiction is one judged pair.
type contradiction struct {
	other      candidate
	similarity float64
	reason     string
}

// detect checks memory m (already stored with its embedding, in the caller's
// locked transaction): parents it contradicts are superseded by it (a correction);
// other live memories it contradicts are disputed with it in one conflict.
func (s *Store) detect(ctx context.Context, tx pgx.Tx, m Memory, vec []float32, model, actor string) (detection, error) {
	iterative, err := s.iterativeScan(ctx, tx)
	if err != nil {
		return detection{}, err
	}
	rows, err := tx.Query(ctx, candidatesSQL(model, len(vec), iterative), s.project, pgvector.NewVector(vec), s.Threshold(), m.ID, m.ParentIDs, contentHash(m.Content))
	if err != nil {
		return detection{}, fmt.Errorf("find conflict candidates: %w", err)
	}
	cands, err := pgx.CollectRows(rows, pgx.RowToStructByName[candidate])
	if err != nil {
		return detection{}, fmt.Errorf("find conflict candidates: %w", err)
	}
	return s.detectAmong(ctx, tx, m, cands, actor)
}

// detectAmong is detect on candidates already fetched (add fetches them in the
// round trip that inserts m). The candidates exclude m's parents, so correcting
// them first or last is the same.
func (s *Store) detectAmong(ctx context.Context, tx pgx.Tx, m Memory, cands []candidate, actor string) (detection, error) {
	var det detection
	judge := newMemoJudge(s.judge) // m is analysed once for all its pairs
	corrected, err := s.correctParents(ctx, tx, judge, m, actor)
	if err != nil {
		return det, err
	}
	det.corrected = corrected
	var found []contradiction
	for _, c := range cands {
		v, err := judge.Judge(ctx, Claim{Kind: m.Kind, Text: m.Content}, Claim{Kind: c.Kind, Text: c.Content})
		if err != nil {
			return det, fmt.Errorf("judge %s against %s: %w", m.ID, c.ID, err)
		}
		if v.Contradicts {
			found = append(found, contradiction{other: c, similarity: c.Similarity, reason: v.Reason})
		}
	}
	if len(found) == 0 {
		return det, nil
	}
	det.conflictID, det.disputed, err = s.dispute(ctx, tx, m, found, actor)
	return det, err
}

// correctParents supersedes the live parents that m contradicts: a new memory that
// names its parent and says the opposite is a correction, not a dispute.
func (s *Store) correctParents(ctx context.Context, tx pgx.Tx, judge Judge, m Memory, actor string) ([]string, error) {
	if len(m.ParentIDs) == 0 {
		return nil, nil
	}
	parents, err := s.lockMemories(ctx, tx, m.ParentIDs)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range parents {
		if p.Status != StatusActive && p.Status != StatusDisputed && p.Status != StatusNeedsReview {
			continue
		}
		v, err := judge.Judge(ctx, Claim{Kind: m.Kind, Text: m.Content}, Claim{Kind: p.Kind, Text: p.Content})
		if err != nil {
			return nil, fmt.Errorf("judge %s against parent %s: %w", m.ID, p.ID, err)
		}
		if !v.Contradicts {
			continue
		}
		if err := s.apply(ctx, tx, transition{id: p.ID, from: p.Status, to: StatusSuperseded, action: ActionSupersede,
			actor: actor, reason: "corrected by " + m.ID + ": " + v.Reason, supersededBy: m.ID}); err != nil {
			return nil, err
		}
		out = append(out, p.ID)
	}
	return out, nil
}

// openConflict is an open conflict touched by a new contradiction.
type openConflict struct {
	ID        string   `db:"id"`
	MemoryIDs []string `db:"memory_ids"`
}

// dispute puts m and the memories it contradicts into one open conflict: a new one,
// or the open conflict(s) they already belong to (merged into the oldest), so a
// group of mutually contradicting memories is one conflict. Every live member
// becomes DISPUTED. It returns the conflict and m as it is then (read back in
// the round trip of the disputes, not one of its own).
func (s *Store) dispute(ctx context.Context, tx pgx.Tx, m Memory, found []contradiction, actor string) (string, Memory, error) {
	slices.SortStableFunc(found, func(a, b contradiction) int { return a.other.CreatedAt.Compare(b.other.CreatedAt) })
	ids := make([]string, 0, len(found))
	best := 0.0
	for _, f := range found {
		ids = append(ids, f.other.ID)
		best = max(best, f.similarity)
	}
	rows, err := tx.Query(ctx, `SELECT id::text AS id, memory_ids::text[] AS memory_ids FROM conflicts
		WHERE repository_id = $1 AND status = 'open' AND memory_ids && $2::uuid[]
		ORDER BY created_at, id FOR UPDATE`, s.project, ids)
	if err != nil {
		return "", Memory{}, fmt.Errorf("find open conflicts: %w", err)
	}
	open, err := pgx.CollectRows(rows, pgx.RowToStructByName[openConflict])
	if err != nil {
		return "", Memory{}, fmt.Errorf("find open conflicts: %w", err)
	}

	var members []string
	for _, c := range open {
		members = appendNew(members, c.MemoryIDs...)
	}
	members = appendNew(members, ids...)
	members = appendNew(members, m.ID)
	reason := describeFound(m, found, len(open) > 0 || len(found) > 1)

	// The conflict's row and its members' disputes go in one round trip.
	b := &pgx.Batch{}
	var conflictID string
	if len(open) == 0 {
		conflictID = newID()
		b.Queue(`INSERT INTO conflicts (repository_id, id, memory_ids, similarity, reason)
			VALUES ($1, $5::uuid, $2::uuid[], $3, $4)`, s.project, members, best, reason, conflictID)
	} else {
		conflictID = open[0].ID
		b.Queue(`UPDATE conflicts SET memory_ids = $3::uuid[], similarity = greatest(similarity, $4),
			reason = reason || '; ' || $5 WHERE repository_id = $1 AND id = $2::uuid`,
			s.project, conflictID, members, best, reason)
		if len(open) > 1 {
			var absorbed []string
			for _, c := range open[1:] {
				absorbed = append(absorbed, c.ID)
			}
			b.Queue(`UPDATE conflicts SET status = 'resolved', resolution = 'merged:' || $3,
				resolver = $4, note = 'merged into conflict ' || $3, resolved_at = now()
				WHERE repository_id = $1 AND id = ANY($2::uuid[])`, s.project, absorbed, conflictID, actor)
		}
	}
	b.Queue(disputeSQL, s.project, members, actor, disputeReasons(m.ID, ids, members), conflictID)
	b.Queue(`SELECT `+memoryColumns+` FROM memories m WHERE m.repository_id = $1 AND m.id = $2::uuid`, s.project, m.ID)
	br := tx.SendBatch(ctx, b)
	after, err := readDisputed(br, b.Len()-1)
	if err = closeBatch(br, err, "dispute"); err != nil {
		return "", Memory{}, fmt.Errorf("open or extend conflict %s and dispute its memories: %w", conflictID, err)
	}
	after.Anchors = m.Anchors
	return conflictID, after, nil
}

// readDisputed reads the results of dispute's batch: n statements, then the
// disputing memory's row.
func readDisputed(br pgx.BatchResults, n int) (Memory, error) {
	for range n {
		if _, err := br.Exec(); err != nil {
			return Memory{}, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return Memory{}, err
	}
	return pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Memory])
}

// describeFound writes the conflict reason: the judge's reasons, each prefixed with
// the pair when the conflict has more than two sides.
func describeFound(m Memory, found []contradiction, pairs bool) string {
	parts := make([]string, 0, len(found))
	for _, f := range found {
		if pairs {
			parts = append(parts, fmt.Sprintf("%s vs %s: %s", short(m.ID), short(f.other.ID), f.reason))
		} else {
			parts = append(parts, f.reason)
		}
	}
	return strings.Join(parts, "; ")
}

// short is the first block of a uuid, enough for a person to tell memories apart.
func short(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

func appendNew(list []string, ids ...string) []string {
	for _, id := range ids {
		if !slices.Contains(list, id) {
			list = append(list, id)
		}
	}
	return list
}
