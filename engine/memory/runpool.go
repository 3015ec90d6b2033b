package memory

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/vecsketch"
)

// A run's pools are chosen in Go, not by an HNSW query per member: the
// project's vectors of the model (the rows the pool query would walk: every
// status, as poolSQL's) are read once and kept for the store's next run while
// their print matches (runVectors), each member's nearest are picked from
// them, and one round trip has PostgreSQL compute those pairs' similarities,
// the same expression and floats as poolSQL's, and read the rows and their
// eligibility. The pool is then cut at candidatePool by PostgreSQL's
// floats, so Go's own rounding decides nothing but which rows are asked about
// (with pickSlack rows to spare).
//
// Up to exactPoolMax stored vectors every one is compared exactly; past that
// the ternary sketch (engine/vecsketch) of each ranks them and the best
// sketchPoolCandidates are compared exactly: an approximation, as the HNSW walk
// it replaces is one.
const (
	exactPoolMax         = 2048
	sketchPoolCandidates = 400
	// pickSlack rows beyond the pool are asked about, so that a row Go's float32
	// sums put just outside the pool and PostgreSQL's just inside is not missed.
	pickSlack = 8
	// gateSlack is how far below the gate Go's cosine may be for a row to be
	// asked about (PostgreSQL's is the one compared with the gate).
	gateSlack = 1e-3
)

// storedVectors are the project's vectors of one model.
type storedVectors struct {
	model  string
	dims   int
	print  vecPrint
	ids    []string
	flat   []float32 // ids[i]'s vector at [i*dims, (i+1)*dims)
	norms  []float64
	sketch []uint64 // nil up to exactMax vectors
	// exactMax is the most vectors compared exactly and cands the sketch's
	// candidates past it (the store's exactPoolMax and sketchCandidates).
	exactMax, cands int
}

// vecPrint tells whether the project's vectors of a model changed: their
// count and the sum of their rows' xmin (an insert, a delete or an update by
// any transaction changes one or the other).
type vecPrint struct{ count, xmins int64 }

// vecPrintSQL is vecPrint of the project's vectors of model $2.
const vecPrintSQL = `SELECT count(*), coalesce(sum(xmin::text::bigint), 0)::bigint FROM memory_embeddings
	WHERE repository_id = $1 AND model = $2`

// runVectors is the project's vectors of model, in the caller's locked
// transaction: those the last run kept when their print still matches (a push
// of many runs reads them once), else read anew.
func (s *Store) runVectors(ctx context.Context, tx pgx.Tx, model string, dims int) (*storedVectors, error) {
	s.runMu.Lock()
	kept := s.runVecs
	s.runVecs = nil // a concurrent run reads its own
	s.runMu.Unlock()
	if kept != nil && kept.model == model && kept.dims == dims {
		var now vecPrint
		if err := tx.QueryRow(ctx, vecPrintSQL, s.project, model).Scan(&now.count, &now.xmins); err != nil {
			return nil, fmt.Errorf("check the project's vectors: %w", err)
		}
		if now == kept.print {
			return kept, nil
		}
	}
	return s.loadStored(ctx, tx, model, dims)
}

// keepRunVectors adds the run's stored vectors to sv and keeps it for the next
// run, with the print taken after the run's insert (in its transaction: should
// it roll back, the print no longer matches and the next run reads anew).
func (s *Store) keepRunVectors(ctx context.Context, tx pgx.Tx, sv *storedVectors, ms []Memory, vecs [][]float32) error {
	if err := tx.QueryRow(ctx, vecPrintSQL, s.project, sv.model).Scan(&sv.print.count, &sv.print.xmins); err != nil {
		return fmt.Errorf("check the project's vectors: %w", err)
	}
	for i, m := range ms {
		sv.add(m.ID, vecs[i])
	}
	s.runMu.Lock()
	s.runVecs = sv
	s.runMu.Unlock()
	// A push's runs follow one another within milliseconds; a store that
	// pushes no more (the TUI's, the MCP server's) lets the vectors go.
	time.AfterFunc(keepRunVectorsFor, func() {
		s.runMu.Lock()
		if s.runVecs == sv {
			s.runVecs = nil
		}
		s.runMu.Unlock()
	})
	return nil
}

// keepRunVectorsFor is how long the vectors of a run are kept for the next.
const keepRunVectorsFor = time.Minute

// add appends one vector (and its sketch, past exactPoolMax).
func (sv *storedVectors) add(id string, v []float32) {
	sv.ids = append(sv.ids, id)
	sv.flat = append(sv.flat, v...)
	sv.norms = append(sv.norms, math.Sqrt(vecsketch.Dot(v, v)))
	switch {
	case sv.sketch != nil:
		sv.sketch = append(sv.sketch, vecsketch.Of(v)...)
	case len(sv.ids) > sv.exactMax:
		sv.sketch = vecsketch.All(sv.flat, sv.dims)
	}
}

// loadStored reads the project's vectors of model (dims long), in the
// caller's locked transaction.
func (s *Store) loadStored(ctx context.Context, tx pgx.Tx, model string, dims int) (*storedVectors, error) {
	// vector_send: the binary form, four bytes a component, several times
	// cheaper to read than the text form.
	rows, err := tx.Query(ctx, `SELECT memory_id::text, vector_send(embedding), xmin::text::bigint FROM memory_embeddings
		WHERE repository_id = $1 AND model = $2`, s.project, model)
	if err != nil {
		return nil, fmt.Errorf("read the project's vectors: %w", err)
	}
	defer rows.Close()
	sv := &storedVectors{model: model, dims: dims, exactMax: s.exactPoolMax, cands: s.sketchCandidates}
	var id string
	var raw []byte
	var xmin int64
	for rows.Next() {
		if err := rows.Scan(&id, &raw, &xmin); err != nil {
			return nil, fmt.Errorf("read the project's vectors: %w", err)
		}
		at := len(sv.flat)
		if sv.flat, err = appendVectorSend(sv.flat, raw, dims); err != nil {
			return nil, fmt.Errorf("memory %s, model %s: %w", id, model, err)
		}
		f := sv.flat[at:]
		sv.ids = append(sv.ids, id)
		sv.norms = append(sv.norms, math.Sqrt(vecsketch.Dot(f, f)))
		sv.print.count++
		sv.print.xmins += xmin
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the project's vectors: %w", err)
	}
	if len(sv.ids) > sv.exactMax {
		sv.sketch = vecsketch.All(sv.flat, dims)
	}
	return sv, nil
}

// appendVectorSend appends the components of a vector in pgvector's binary
// form (vector_send: dims and an unused field as two big-endian int16s, then
// the float32s, big-endian) to flat.
func appendVectorSend(flat []float32, raw []byte, dims int) ([]float32, error) {
	if len(raw) < 4 || int(binary.BigEndian.Uint16(raw)) != dims || len(raw) != 4+4*dims {
		return flat, fmt.Errorf("a vector of %d bytes is not %d dimensions", len(raw), dims)
	}
	for k := range dims {
		flat = append(flat, math.Float32frombits(binary.BigEndian.Uint32(raw[4+4*k:])))
	}
	return flat, nil
}

// nearest is the positions of the stored vectors to ask about for q's pool:
// the candidatePool+pickSlack most similar by cosine at or above gate -
// gateSlack (one below the gate can neither be a candidate nor push one out of
// the pool).
func (sv *storedVectors) nearest(q []float32, gate float64) []int {
	qn := math.Sqrt(vecsketch.Dot(q, q))
	if qn == 0 {
		return nil
	}
	d := sv.dims
	var hits []poolHit
	consider := func(i int) {
		if sv.norms[i] == 0 {
			return
		}
		sim := vecsketch.Dot(q, sv.flat[i*d:(i+1)*d]) / (qn * sv.norms[i])
		if sim >= gate-gateSlack {
			hits = append(hits, poolHit{i, sim})
		}
	}
	if sv.sketch == nil {
		for i := range sv.ids {
			consider(i)
		}
	} else {
		for _, i := range sv.sketchTop(q, sv.cands) {
			consider(i)
		}
	}
	return bestPositions(hits)
}

// sketchTop is the positions of the k stored vectors of best sketch
// similarity to q, in no order.
func (sv *storedVectors) sketchTop(q []float32, k int) []int {
	qs := vecsketch.Of(q)
	w := len(qs)
	sims := make([]int32, len(sv.ids))
	if w == 12 {
		q6 := (*[12]uint64)(qs)
		for i := range sims {
			sims[i] = int32(vecsketch.Sim6(q6, (*[12]uint64)(sv.sketch[i*12:i*12+12])))
		}
	} else {
		for i := range sims {
			sims[i] = int32(vecsketch.Sim(qs, sv.sketch[i*w:(i+1)*w]))
		}
	}
	if k >= len(sims) {
		idx := make([]int, len(sims))
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	// A counting selection: sketch similarities are integers within ±dims,
	// so the k-th best is found from their histogram in one pass, not a sort.
	off := int32(w * 64)
	count := make([]int, 2*off+1)
	for _, v := range sims {
		count[v+off]++
	}
	cut, above := int32(2*off), 0
	for ; cut > 0 && above+count[cut] < k; cut-- {
		above += count[cut]
	}
	ties := k - above // how many at the cut's value are taken
	out := make([]int, 0, k)
	for i, v := range sims {
		switch {
		case v+off > cut:
			out = append(out, i)
		case v+off == cut && ties > 0:
			out = append(out, i)
			ties--
		}
	}
	return out
}

// pickedRow is a stored memory asked about: its row, whether it is live with
// a vector, and the content hashes of the memories a keep-both exempts it from.
type pickedRow struct {
	candidate
	live   bool
	exempt []string
}

// pickedRowsSQL reads the pickedRows of ids $2 (candidatesSQL's filters, but
// the exemption by the member's content hash is checked in Go, per member).
// A project with no exemption at all (an uncorrelated EXISTS: asked once per
// statement) skips the per-row lookup: it was a scan of the project's
// exemptions for each of a run's ~3,300 rows: 45% of the statement's time
// (pg_stat_statements, BenchmarkSyncQueued: 352-388 ms for 36 runs, 198 after).
const pickedRowsSQL = `SELECT m.id::text, m.kind, m.content, m.status, m.created_at,
	m.status IN ` + vectorStatuses + ` AS live,
	CASE WHEN EXISTS (SELECT 1 FROM conflict_exemptions WHERE repository_id = $1) THEN
		array(SELECT o.content_hash FROM conflict_exemptions x
			JOIN memories o ON o.repository_id = $1
				AND o.id = CASE WHEN x.memory_a = m.id THEN x.memory_b ELSE x.memory_a END
			WHERE x.repository_id = $1 AND (x.memory_a = m.id OR x.memory_b = m.id))
	ELSE '{}' END AS exempt
FROM memories m WHERE m.repository_id = $1 AND m.id = ANY($2::uuid[])`

func readPicked(br pgx.BatchResults) (map[string]*pickedRow, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*pickedRow{}
	for rows.Next() {
		p := &pickedRow{}
		c := &p.candidate
		if err := rows.Scan(&c.ID, &c.Kind, &c.Content, &c.Status, &c.CreatedAt, &p.live, &p.exempt); err != nil {
			return nil, err
		}
		out[c.ID] = p
	}
	return out, rows.Err()
}
