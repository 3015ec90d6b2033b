package eval

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// BM25 parameters of the file baseline (the usual defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25Files is a plain BM25 over whole files, in memory: the baseline a code
// search engine should beat on file localisation. Tokens are the engine's own
// (lower-cased words, identifiers also split: index.SearchText); tests and docs
// are not demoted. It is updated file by file, so each history step only re-reads
// what changed.
type bm25Files struct {
	docs     map[string]bm25Doc          // path -> document
	postings map[string]map[string]int32 // term -> path -> frequency
	total    int                         // tokens over all documents
}

type bm25Doc struct {
	blob   string
	length int      // tokens
	terms  []string // distinct terms, to remove the document's postings
}

func newBM25Files() *bm25Files {
	return &bm25Files{docs: map[string]bm25Doc{}, postings: map[string]map[string]int32{}}
}

func bm25Tokens(text string) []string { return strings.Fields(index.SearchText(text)) }

// put replaces the document of path.
func (b *bm25Files) put(path, blob string, content []byte) {
	b.remove(path)
	toks := bm25Tokens(string(content))
	d := bm25Doc{blob: blob, length: len(toks)}
	for _, t := range toks {
		m := b.postings[t]
		if m == nil {
			m = map[string]int32{}
			b.postings[t] = m
		}
		if m[path] == 0 {
			d.terms = append(d.terms, t)
		}
		m[path]++
	}
	b.docs[path] = d
	b.total += len(toks)
}

// remove drops the document of path.
func (b *bm25Files) remove(path string) {
	d, ok := b.docs[path]
	if !ok {
		return
	}
	for _, t := range d.terms {
		m := b.postings[t]
		delete(m, path)
		if len(m) == 0 {
			delete(b.postings, t)
		}
	}
	b.total -= d.length
	delete(b.docs, path)
}

// search returns up to limit paths by BM25 score, best first (ties by path).
func (b *bm25Files) search(query string, limit int) []string {
	n := float64(len(b.docs))
	if n == 0 {
		return nil
	}
	avg := float64(b.total) / n
	scores := map[string]float64{}
	seen := map[string]bool{}
	for _, t := range bm25Tokens(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		m := b.postings[t]
		if len(m) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(m))+0.5)/(float64(len(m))+0.5))
		for p, tf := range m {
			f := float64(tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(b.docs[p].length)/avg)
			scores[p] += idf * f * (bm25K1 + 1) / (f + norm)
		}
	}
	paths := make([]string, 0, len(scores))
	for p := range scores {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		if scores[paths[i]] != scores[paths[j]] {
			return scores[paths[i]] > scores[paths[j]]
		}
		return paths[i] < paths[j]
	})
	return paths[:min(limit, len(paths))]
}

// blobReader is what sync reads file contents with (source.BlobReader).
type blobReader interface {
	Read(ctx context.Context, name string) ([]byte, error)
}

// sync makes the documents the files the index holds for repoID (not skipped),
// reading only those whose blob changed.
func (b *bm25Files) sync(ctx context.Context, db *pg.DB, repoID int64, blobs blobReader) error {
	rows, err := db.Pool.Query(ctx, `SELECT path, coalesce(blob_sha, '') FROM files
		WHERE repository_id = $1 AND status <> 'skipped'`, repoID)
	if err != nil {
		return fmt.Errorf("bm25 baseline: list files: %w", err)
	}
	want := map[string]string{}
	for rows.Next() {
		var p, blob string
		if err := rows.Scan(&p, &blob); err != nil {
			rows.Close()
			return fmt.Errorf("bm25 baseline: list files: %w", err)
		}
		want[p] = blob
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("bm25 baseline: list files: %w", err)
	}
	for p := range b.docs {
		if _, ok := want[p]; !ok {
			b.remove(p)
		}
	}
	for p, blob := range want {
		if d, ok := b.docs[p]; ok && d.blob == blob || blob == "" {
			continue
		}
		data, err := blobs.Read(ctx, blob)
		if err != nil {
			return fmt.Errorf("bm25 baseline: read %s: %w", p, err)
		}
		b.put(p, blob, data)
	}
	return nil
}
