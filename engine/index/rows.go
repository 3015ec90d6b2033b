package index

import (
	"path"

	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/parse"
	"github.com/spelunkhq/spelunk/engine/postings"
)

// fileRows collects the rows a batch of files writes, for COPY.
type fileRows struct {
	files, symbols, edges, vectors, postings [][]any
	pending                                  []pendingSymbol
	posted                                   []filePostings // each file's postings, made into rows by postingsChange
}

// add appends the rows of file p, whose file id is fid and whose chunks and
// fields take the symbol ids ids (chunks first, then fields, in order), in
// postings group group. kept says which stored rows of the symbols may stay
// (vectors.go).
func (r *fileRows) add(w *writer, p *parsed, fid, group int64, ids []int64, reuse map[string]pgvector.HalfVector, kept *keptRows) {
	r.files = append(r.files, []any{w.repoID, fid, p.Path, dirOf(p.Path), nullIfEmpty(p.BlobSHA), p.revision,
		nullIfEmpty(p.language), p.Size, nullIfEmpty(p.hash), p.status, nullIfEmpty(p.skip),
		nonNil(p.notes), p.secrets, IsTest(p.Path), p.mtime, group})
	if p.file == nil {
		return
	}
	chunkIDs := ids[:len(p.file.Symbols)]
	r.addChunks(w, p, fid, group, chunkIDs, reuse, kept)
	r.addFields(w, p, fid, chunkIDs, ids[len(p.file.Symbols):])
	for k, imp := range p.file.Imports {
		var tp any
		if p.imports[k] != "" {
			tp = p.imports[k]
		}
		r.edges = append(r.edges, []any{w.repoID, fid, chunkIDs[0], "imports", nil,
			pgText(imp.Path), pgText(importBinding(p.file.Language, imp)), tp, imp.Line, "", "unresolved"})
		for _, name := range reexported(p, imp) {
			r.edges = append(r.edges, []any{w.repoID, fid, chunkIDs[0], string(parse.RefReferences), nil,
				pgText(name), "", nil, imp.Line, "", "unresolved"})
		}
	}
	for _, ref := range p.file.Refs {
		if ref.Kind == parse.RefImports {
			continue // recorded from Imports, which carry the binding
		}
		from := ref.From
		if from < 0 || from >= len(chunkIDs) {
			from = 0
		}
		r.edges = append(r.edges, []any{w.repoID, fid, chunkIDs[from], string(ref.Kind), nil,
			pgText(ref.Name), pgText(ref.Qualifier), nil, ref.Line, pgText(ref.QualifierType), "unresolved"})
	}
}

// addChunks appends the rows of p's chunks: symbols, their postings, vectors
// reused by content hash (or a pending embedding), and containment edges.
func (r *fileRows) addChunks(w *writer, p *parsed, fid, group int64, ids []int64, reuse map[string]pgvector.HalfVector, kept *keptRows) {
	isTest := IsTest(p.Path)
	texts := p.texts()
	terms := map[string][]postings.Posting{}
	for j, s := range p.file.Symbols {
		var parent any
		if s.Parent >= 0 && s.Parent < len(ids) && s.Parent != j {
			parent = ids[s.Parent]
		}
		c := texts[j]
		body, skeleton, h := c.body, c.skeleton, c.hash
		state := "pending"
		if hv, ok := kept.vectors[ids[j]]; ok && hv == h {
			state = "embedded" // its row stays as it is
		} else if c.vector != nil {
			state = "embedded"
			r.vectors = append(r.vectors, []any{w.repoID, ids[j], w.modelID, h, *c.vector, ownIndexValue(w.ownIndex)})
		} else if v, ok := reuse[h]; ok {
			state = "embedded"
			r.vectors = append(r.vectors, []any{w.repoID, ids[j], w.modelID, h, v, ownIndexValue(w.ownIndex)})
		} else {
			r.pending = append(r.pending, pendingSymbol{id: ids[j], hash: h, def: c.def, text: c.text})
		}
		nameWords, sigWords, bodyWords := SearchText(nameText(s)), SearchText(s.Signature), SearchText(s.Doc+"\n"+body)
		tf, docLen := termFrequencies(nameWords, sigWords, bodyWords)
		if s.Kind != parse.KindPart {
			for term, f := range tf {
				terms[term] = append(terms[term], postings.Posting{Symbol: ids[j], TF: f, DL: docLen})
			}
		}
		w.countName(string(s.Kind), pgText(s.Name), pgTexts(s.Aliases), +1)
		r.symbols = append(r.symbols, []any{w.repoID, ids[j], fid, p.Path, pgText(s.Name), pgText(s.QualifiedName),
			pgTexts(s.Aliases), string(s.Kind), parent, nullIfEmpty(pgText(s.Receiver)), pgText(s.Signature), pgText(s.Doc),
			s.StartLine, s.EndLine, s.StartByte, s.EndByte, pgText(s.Content), c.def, p.file.Language,
			s.Exported, isTest, state, pgSkeleton(skeleton), float32(docLen),
			nullIfEmpty(pgText(s.ResultType)), nilIfEmpty(pgTexts(s.Embeds))})
		if parent != nil {
			r.edges = append(r.edges, []any{w.repoID, fid, parent, "contains", ids[j],
				pgText(s.Name), "", nil, s.StartLine, "", "exact"})
		}
	}
	if len(terms) > 0 {
		r.posted = append(r.posted, filePostings{group: group, terms: terms})
	}
}

// fieldState is the embedding state of a field: fields are graph nodes, not
// chunks, so they are never embedded, have no postings and no search text,
// and the retrieval channels never return them.
const fieldState = "none"

// addFields appends p's fields as symbols of kind field under their owner
// chunk. Receiver is the owner's name, as for a method, so that resolution
// matches a Go field like a method; result_type holds the field's type.
func (r *fileRows) addFields(w *writer, p *parsed, fid int64, chunkIDs, ids []int64) {
	isTest := IsTest(p.Path)
	for j, fl := range p.file.Fields {
		if fl.Owner <= 0 || fl.Owner >= len(chunkIDs) {
			continue // the parser guarantees an owner; a row without one would be unreachable
		}
		owner := p.file.Symbols[fl.Owner]
		w.countName(string(parse.KindField), pgText(fl.Name), nil, +1)
		r.symbols = append(r.symbols, []any{w.repoID, ids[j], fid, p.Path, pgText(fl.Name), pgText(fl.QualifiedName),
			[]string{}, string(parse.KindField), chunkIDs[fl.Owner], nullIfEmpty(pgText(owner.Name)), pgText(fl.Signature), "",
			fl.StartLine, fl.EndLine, fl.StartByte, fl.EndByte, pgText(fl.Content), contentHash([]byte(fl.Content)), p.file.Language,
			fl.Exported, isTest, fieldState, nil, 0,
			nullIfEmpty(pgText(fl.Type)), nil})
	}
}

// reexported are the names a Python package's __init__.py imports under
// their own name (`from .helpers import url_for`, `... as url_for`): what
// `import pkg; pkg.url_for()` and `from pkg import url_for` reach. Each is
// kept as a reference edge of the module, which resolution follows from the
// package to the definition (resolve_names.go, "re-exported names").
func reexported(p *parsed, imp parse.Import) []string {
	if p.file.Language != "python" || path.Base(p.Path) != "__init__.py" {
		return nil
	}
	var out []string
	for _, n := range imp.Names {
		if n.Name != "*" && (n.Alias == "" || n.Alias == n.Name) {
			out = append(out, n.Name)
		}
	}
	return out
}
