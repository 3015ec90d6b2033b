package index

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/jackc/pgx/v5"
)

// A first load wrote every edge twice: as the load parsed it and again, with
// its decision, when the full pass rewrote the table (resolve_rewrite.go),
// after reading it back. At $GOROOT/src the 480k reference edges went in
// (~1.5 s of the server's time), came back out (1.3 s), were joined with
// their decisions (0.9 s) and went in again (1.7 s). The decisions need
// only what the load parsed, so a first load holds its reference edges in a
// file of its own instead (an edgeSpool; run.holdsEdges: also the first load
// of one more repository, whose edges were inserted and then updated in
// place under every index of the shared table, 0.87x its time): the full
// pass reads them from there beside the table's imports, and writes each
// one once, with its decision. The imports and containment edges go into
// the table as before: the steps before the pass (reresolveImports,
// linkGoImplementations, linkImports) read and update them there.
//
// A run killed before the write must not leave files whose reference edges
// are lost: their rows carry no blob id until the edges are in (the files'
// blob ids are restored in the same transaction), so the next run reads and
// writes every such file again, as it does after a killed full run.

// spooledKind reports whether a load row's edge of kind goes to the spool.
func spooledKind(kind string) bool { return kind != "imports" && kind != "contains" }

// heldEdge is a reference edge as the load parsed it: undecided.
type heldEdge struct {
	file, source         int64
	kind, name, qual, tt string
	line                 int32
}

// edgeSpool holds a load's reference edges in a temporary file, in the
// order the batches committed, and the blob ids of the files written.
type edgeSpool struct {
	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	n     int
	files map[int64]string // file id -> blob id, restored once the edges are in
	err   error
	// unlinked: the file's name is gone already (newEdgeSpool).
	unlinked bool
}

func newEdgeSpool() (*edgeSpool, error) {
	f, err := os.CreateTemp("", "spelunk-edges-*")
	if err != nil {
		return nil, fmt.Errorf("hold the load's edges: %w", err)
	}
	// Unlinked at once where the system allows it: the file then goes with
	// the process, however it ends (a killed run leaves nothing behind).
	s := &edgeSpool{f: f, w: bufio.NewWriterSize(f, 1<<20), files: map[int64]string{}}
	s.unlinked = os.Remove(f.Name()) == nil
	return s, nil
}

// close closes the file, and removes it where it was not unlinked.
func (s *edgeSpool) close() {
	if s == nil {
		return
	}
	s.f.Close()
	if !s.unlinked {
		os.Remove(s.f.Name())
	}
}

// takeBatch moves a batch's spooled edges out of rows and clears its files'
// blob ids, before its transaction copies it; it returns what add records
// once that transaction has committed.
func (s *edgeSpool) takeBatch(rows *fileRows) (held []heldEdge, blobs map[int64]string) {
	kept := rows.edges[:0]
	for _, e := range rows.edges {
		kind := e[edgeKindAt].(string)
		if !spooledKind(kind) {
			kept = append(kept, e)
			continue
		}
		held = append(held, heldEdge{file: e[edgeFileAt].(int64), source: e[edgeSourceAt].(int64), kind: kind,
			name: e[edgeNameAt].(string), qual: e[edgeQualifierAt].(string), tt: e[edgeTypeAt].(string),
			line: int32(e[edgeLineAt].(int))})
	}
	rows.edges = kept
	blobs = map[int64]string{}
	for _, f := range rows.files {
		if sha, ok := f[fileBlobAt].(string); ok {
			blobs[f[fileIDAt].(int64)] = sha
			f[fileBlobAt] = nil
		}
	}
	return held, blobs
}

// add records a committed batch's edges and blob ids.
func (s *edgeSpool) add(held []heldEdge, blobs map[int64]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, sha := range blobs {
		s.files[id] = sha
	}
	var buf []byte
	for _, e := range held {
		buf = binary.AppendVarint(buf[:0], e.file)
		buf = binary.AppendVarint(buf, e.source)
		buf = binary.AppendVarint(buf, int64(e.line))
		for _, t := range [...]string{e.kind, e.name, e.qual, e.tt} {
			buf = binary.AppendUvarint(buf, uint64(len(t)))
			buf = append(buf, t...)
		}
		if _, err := s.w.Write(buf); err != nil && s.err == nil {
			s.err = err
		}
	}
	s.n += len(held)
	if s.err != nil {
		return fmt.Errorf("hold the load's edges: %w", s.err)
	}
	return nil
}

// count is how many edges the spool holds.
func (s *edgeSpool) count() int {
	if s == nil {
		return 0
	}
	return s.n
}

// heldReader reads the held edges back, in order.
type heldReader struct {
	s     *edgeSpool
	r     *bufio.Reader
	i     int // edges read
	words interner
	buf   []byte
}

// reader flushes what was written and starts reading from the first edge.
func (s *edgeSpool) reader() (*heldReader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("hold the load's edges: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read the held edges: %w", err)
	}
	return &heldReader{s: s, r: bufio.NewReaderSize(s.f, 1<<20), words: interner{}}, nil
}

// next reads the next edge into e; false after the last.
func (h *heldReader) next(e *heldEdge) (bool, error) {
	if h.i == h.s.n {
		if _, err := h.r.ReadByte(); !errors.Is(err, io.EOF) {
			return false, fmt.Errorf("read the held edges: %d edges recorded, more in the file", h.s.n)
		}
		return false, nil
	}
	var vals [3]int64
	for k := range vals {
		v, err := binary.ReadVarint(h.r)
		if err != nil {
			return false, fmt.Errorf("read the held edges: %w", err)
		}
		vals[k] = v
	}
	var strs [4]string
	for k := range strs {
		n, err := binary.ReadUvarint(h.r)
		if err != nil {
			return false, fmt.Errorf("read the held edges: %w", err)
		}
		h.buf = append(h.buf[:0], make([]byte, n)...)
		if _, err := io.ReadFull(h.r, h.buf); err != nil {
			return false, fmt.Errorf("read the held edges: %w", err)
		}
		strs[k] = h.words.bytes(h.buf)
	}
	*e = heldEdge{file: vals[0], source: vals[1], line: int32(vals[2]), kind: strs[0], name: strs[1], qual: strs[2], tt: strs[3]}
	h.i++
	return true, nil
}

// each calls f with every held edge, in order, and its position.
func (s *edgeSpool) each(f func(i int, e *heldEdge) error) error {
	rd, err := s.reader()
	if err != nil {
		return err
	}
	var e heldEdge
	for {
		ok, err := rd.next(&e)
		if err != nil || !ok {
			return err
		}
		if err := f(rd.i-1, &e); err != nil {
			return err
		}
	}
}

// heldID is the key a held edge goes by in the pass until it is written
// (the table's ids are positive).
func heldID(i int) int64 { return -int64(i) - 1 }

// writeHeld writes the held edges with the decisions of g into the edges
// table, and gives the files their blob ids back, in tx.
func (s *edgeSpool) writeHeld(ctx context.Context, tx pgx.Tx, repoID int64, g *memGraph) error {
	// Each held edge's row of g.res, plus one (0: none): the pass keeps a
	// row only for an edge whose file and source it read.
	rowOf := make([]int32, s.n)
	for i := range g.res {
		if r := &g.res[i]; r.id < 0 {
			rowOf[-r.id-1] = int32(i) + 1
		}
	}
	rd, err := s.reader()
	if err != nil {
		return err
	}
	var e heldEdge
	// One COPY, streamed: pgx encodes the rows while the server takes them.
	src := pgx.CopyFromFunc(func() ([]any, error) {
		ok, err := rd.next(&e)
		if err != nil || !ok {
			return nil, err
		}
		var target, cands any
		conf := "unresolved"
		if k := rowOf[rd.i-1]; k > 0 && g.res[k-1].decided && g.res[k-1].dec.sid != 0 {
			d := g.res[k-1].dec
			target, conf = d.sid, confidenceNames[d.conf]
			if d.cands != nil {
				cands = *d.cands
			}
		}
		return []any{repoID, e.file, e.source, e.kind, target, e.name, e.qual, nil, int(e.line), e.tt, conf, cands}, nil
	})
	cols := append(append([]string{}, edgeColumns...), "candidates")
	if _, err := tx.Exec(ctx, `SET LOCAL ROLE NONE`); err != nil { // writer.direct: the session bypasses row security
		return fmt.Errorf("write the held edges: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"edges"}, cols, src); err != nil {
		return fmt.Errorf("write the held edges: %w", err)
	}
	if _, err := tx.Exec(ctx, `RESET ROLE`); err != nil {
		return fmt.Errorf("write the held edges: %w", err)
	}
	return s.restoreBlobs(ctx, tx, repoID)
}

// restoreBlobs gives the files written by the load their blob ids.
func (s *edgeSpool) restoreBlobs(ctx context.Context, tx pgx.Tx, repoID int64) error {
	ids := make([]int64, 0, len(s.files))
	shas := make([]string, 0, len(s.files))
	for id, sha := range s.files {
		ids, shas = append(ids, id), append(shas, sha)
	}
	_, err := tx.Exec(ctx, `UPDATE files f SET blob_sha = u.sha FROM unnest($2::bigint[], $3::text[]) AS u(id, sha)
		WHERE f.repository_id = $1 AND f.id = u.id`, repoID, ids, shas)
	if err != nil {
		return fmt.Errorf("mark the load's files current: %w", err)
	}
	return nil
}

// flushHeld writes the held edges undecided, for a pass that reads them from
// the table (in SQL), and empties the spool.
func (w *writer) flushHeld(ctx context.Context) error {
	s := w.spool
	if s == nil {
		return nil
	}
	err := pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
		return s.writeHeld(ctx, tx, w.repoID, &memGraph{})
	})
	if err != nil {
		return err
	}
	s.close()
	w.spool = nil
	return nil
}
