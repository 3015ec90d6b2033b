package index

import (
	"context"

	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// chunkText is what a chunk stores besides its parse: the body its search text and
// vector come from (a container's skeleton), the text embedded, its hash and,
// when the embedder runs in process, its vector.
type chunkText struct {
	body     string
	skeleton any // the skeleton, or nil when the chunk has no children
	text     string
	hash     string // of text: the key of its vector
	def      string // of the whole definition: symbols.content_hash (definitionText)
	vector   *pgvector.HalfVector
}

// chunkTexts computes p's chunk texts once, in the parse worker: the writer used
// to skeletonize and hash every chunk twice, on the goroutine the database waits for.
func chunkTexts(p parsed) []chunkText {
	syms := p.symbols()
	if len(syms) == 0 {
		return nil
	}
	sk := skeletonize(syms)
	out := make([]chunkText, len(syms))
	for j, s := range syms {
		c := chunkText{body: s.Content}
		if b, ok := sk[j]; ok {
			c.body, c.skeleton = b, b
		}
		c.text = embedText(s.QualifiedName, p.Path, s.Doc, c.body)
		c.hash = contentHash([]byte(c.text))
		c.def = contentHash([]byte(definitionText(s.QualifiedName, p.Path, s.Doc, c.body)))
		out[j] = c
	}
	return out
}

// texts returns p's chunk texts, computing them when the worker did not (a
// caller of prepare outside the pipeline).
func (p *parsed) texts() []chunkText {
	if p.chunks == nil && len(p.symbols()) > 0 {
		p.chunks = chunkTexts(*p)
	}
	return p.chunks
}

// inProcess reports whether emb computes vectors in this process, in
// microseconds per text and without failing (the static code model, GloVe,
// hashing). Their vectors are
// then computed by the parse workers and written with the symbol rows, instead
// of by the embed stage, which rewrote every symbol row (embedding_state, with
// every index entry of the row: the state is in an index predicate, so the
// update is never HOT) and took a third transaction per batch. A remote
// embedder keeps the stage: its calls are slow, batched and may fail.
func inProcess(emb Embedder) bool {
	switch emb.(type) {
	case *embed.Static, *embed.GloVe, *embed.Hashing:
		return true
	}
	return false
}

// embedInline fills the vectors of p's chunks. A failure leaves them to the
// embed stage (pending), as a remote embedder's would.
func embedInline(ctx context.Context, emb Embedder, p *parsed) {
	chunks := p.texts()
	if len(chunks) == 0 {
		return
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.text
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil || len(vecs) != len(chunks) {
		return
	}
	for i := range chunks {
		v := pgvector.NewHalfVector(vecs[i])
		chunks[i].vector = &v
	}
}

// embeddedInline counts the chunks of p whose vector the parse worker computed.
func (p parsed) embeddedInline() int {
	n := 0
	for _, c := range p.chunks {
		if c.vector != nil {
			n++
		}
	}
	return n
}

// prepareChunks computes p's chunk texts and, with an in-process embedder, their
// vectors: work of the parse workers.
func (ix *Indexer) prepareChunks(ctx context.Context, p parsed, inline bool) parsed {
	p.chunks = chunkTexts(p)
	if inline {
		embedInline(ctx, ix.emb, &p)
	}
	return p
}

// batchDone counts a written batch's files, and its chunks embedded inline as
// queued and embedded at once.
func (t *progressTracker) batchDone(batch []parsed) {
	for _, p := range batch {
		t.fileDone(p.status == "skipped", len(p.symbols()))
		if n := p.embeddedInline(); n > 0 {
			t.queued(n)
			t.embedded(n)
		}
	}
}
