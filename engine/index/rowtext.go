package index

// The text of the rows a run writes: skeletons of containers, name texts,
// import bindings, term frequencies and the conversions PostgreSQL needs.

import (
	"strings"
	"unicode/utf8"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// skeletonize returns, for each symbol with children (parts excluded), its content
// with every child's lines but the first removed.
func skeletonize(syms []parse.Symbol) map[int]string {
	children := map[int][]parse.Symbol{}
	for _, s := range syms {
		if s.Parent > 0 && s.Kind != parse.KindPart {
			children[s.Parent] = append(children[s.Parent], s)
		}
	}
	out := make(map[int]string, len(children))
	for pi, kids := range children {
		if pi >= len(syms) {
			continue
		}
		p := syms[pi]
		lines := strings.SplitAfter(p.Content, "\n")
		drop := make([]bool, len(lines))
		for _, k := range kids {
			for l := k.StartLine + 1; l <= k.EndLine; l++ {
				if i := l - p.StartLine; i >= 0 && i < len(lines) {
					drop[i] = true
				}
			}
		}
		var b strings.Builder
		for i, l := range lines {
			if !drop[i] {
				b.WriteString(l)
			}
		}
		out[pi] = b.String()
	}
	return out
}

// nameText is what the name field of the full-text index holds: the name, its
// aliases and the qualified name.
func nameText(s parse.Symbol) string {
	return NameText(s.Name, s.QualifiedName, s.Aliases)
}

// NameText is nameText of a stored symbol's name, qualified name and aliases.
func NameText(name, qualified string, aliases []string) string {
	t := name + " " + qualified
	for _, a := range aliases {
		t += " " + a
	}
	return t
}

// WordText is a symbol's words as the search reads them beside its vector
// (the dense channel's soft term matching): those of its names and of its
// signature (SearchText), then its doc. Computed from the stored columns,
// which the rows kept in columns of their own until migration 0022.
func WordText(name, qualified string, aliases []string, signature, doc string) string {
	return SearchText(NameText(name, qualified, aliases)) + " " + SearchText(signature) + " " + doc
}

// importBinding is the local name under which an import is used, so that a call
// `billing.Refund()` can be resolved through `import ".../billing"`.
func importBinding(lang string, imp parse.Import) string {
	if imp.Alias != "" {
		return imp.Alias
	}
	// JS/TS `import X from './m'` binds X to the module's default export, most
	// often the class or object whose members X.m() calls.
	for _, n := range imp.Names {
		if n.Name == "default" && n.Alias != "" && n.Alias != "default" {
			return n.Alias
		}
	}
	// Python `import pkg.mod` binds the module where a call names it in full
	// (pkg.mod.f(), flask.url_for()): not a local name, not an unknown object.
	if lang == "python" && len(imp.Names) == 0 && !strings.HasPrefix(imp.Path, ".") {
		return imp.Path
	}
	if lang == "go" {
		p := imp.Path
		for i := len(p) - 1; i >= 0; i-- {
			if p[i] == '/' {
				return p[i+1:]
			}
		}
		return p
	}
	return ""
}

// pgText makes a string storable as PostgreSQL text: valid UTF-8 and no NUL bytes
// (a name cut at a byte limit, a NUL deep inside a file that passed the binary sniff).
func pgText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// BM25F field weights: an occurrence in the name counts more than one in the
// signature, which counts more than one in the body.
const (
	nameWeight      = 3
	signatureWeight = 2
	bodyWeight      = 1
	maxTermBytes    = 64 // longer tokens (hashes, base64) are not worth a posting
)

// termFrequencies returns each term's field-weighted frequency and the weighted
// document length, over the words SearchText produced for each field.
func termFrequencies(name, signature, body string) (map[string]uint32, uint32) {
	tf := map[string]uint32{}
	var n uint32
	add := func(text string, w uint32) {
		for t := range strings.FieldsSeq(text) {
			// Single characters and bare numbers are a fifth of all postings and
			// answer no question (whole identifiers such as sha256 keep theirs).
			if len(t) < 2 || len(t) > maxTermBytes || allDigits(t) || !utf8.ValidString(t) || strings.IndexByte(t, 0) >= 0 {
				continue
			}
			tf[t] += w
			n += w
		}
	}
	add(name, nameWeight)
	add(signature, signatureWeight)
	add(body, bodyWeight)
	return tf, n
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func pgTexts(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = pgText(s)
	}
	return out
}

func pgSkeleton(v any) any {
	if s, ok := v.(string); ok {
		return pgText(s)
	}
	return v
}

// edgeColumns are the columns of an edge row as the writers build it.
var edgeColumns = []string{"repository_id", "file_id", "source_id", "kind", "target_id",
	"target_name", "target_qualifier", "target_path", "line", "target_type", "confidence"}

// Positions in an edge row (edgeColumns) and a file row (fileRows.add) that
// the held edges read (edgespool.go).
const (
	edgeFileAt, edgeSourceAt, edgeKindAt = 1, 2, 3
	edgeNameAt, edgeQualifierAt          = 5, 6
	edgeLineAt, edgeTypeAt               = 8, 9
	fileIDAt, fileBlobAt                 = 1, 4
)

// nilIfEmpty stores an empty list as NULL (symbols.embeds: most symbols embed nothing).
func nilIfEmpty(s []string) any {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
