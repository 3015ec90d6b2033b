package index

import (
	"slices"
	"strings"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// Stable symbol ids. A rewritten file's symbols take the ids of the stored
// symbols they replace (same kind and qualified name, in order), so the edges
// of other files that point at them stay right and an edit to one function's
// body re-resolves that file's own edges, not every caller of the file. What a
// resolution can depend on is compared: a definition added, removed, or
// changed in its signature, receiver, result type, embeds, aliases or export,
// or reordered among the file's definitions of its name (ties go by line),
// puts its name, and its owner type's, among the names whose edges are decided
// again (writer.defNames).

// oldSymbol is a stored symbol of a file about to be rewritten.
type oldSymbol struct {
	id                    int64
	kind, name, qname     string
	sig, receiver, result string
	aliases, embeds       []string
	exported              bool
	startLine             int
	vector                string // content hash of its vector of the run's model, "" for none
	matched               bool
}

// newSymbol is what matching needs of a chunk or a field about to be written.
type newSymbol struct {
	kind, name, qname     string
	sig, receiver, result string
	aliases, embeds       []string
	exported              bool
	startLine             int
}

func (o *oldSymbol) same(n newSymbol) bool {
	return o.sig == n.sig && o.receiver == n.receiver && o.result == n.result && o.exported == n.exported &&
		slices.Equal(o.aliases, n.aliases) && slices.Equal(o.embeds, n.embeds)
}

// newSymbols lists f's chunks then fields, in the order their ids are taken.
func newSymbols(f *parse.File) []newSymbol {
	out := make([]newSymbol, 0, len(f.Symbols)+len(f.Fields))
	for _, s := range f.Symbols {
		out = append(out, newSymbol{kind: string(s.Kind), name: pgText(s.Name), qname: pgText(s.QualifiedName),
			sig: pgText(s.Signature), receiver: pgText(s.Receiver), result: pgText(s.ResultType),
			aliases: pgTexts(s.Aliases), embeds: pgTexts(s.Embeds), exported: s.Exported, startLine: s.StartLine})
	}
	for _, fl := range f.Fields {
		owner := ""
		if fl.Owner > 0 && fl.Owner < len(f.Symbols) {
			owner = f.Symbols[fl.Owner].Name
		}
		out = append(out, newSymbol{kind: string(parse.KindField), name: pgText(fl.Name), qname: pgText(fl.QualifiedName),
			sig: pgText(fl.Signature), receiver: pgText(owner), result: pgText(fl.Type), exported: fl.Exported, startLine: fl.StartLine})
	}
	return out
}

// matchIDs gives each new symbol the id of the old one it replaces (0: none,
// a fresh id is needed) and returns the old ids no new symbol took, and the
// names whose resolution may have changed.
func matchIDs(old []oldSymbol, news []newSymbol) (ids []int64, gone []int64, names []string) {
	byKey := map[string][]int{}
	for i := range old {
		k := old[i].kind + "\x00" + old[i].qname
		byKey[k] = append(byKey[k], i)
	}
	changed := map[string]bool{}
	mark := func(name, receiver string, aliases []string) {
		changed[name] = true
		if receiver != "" {
			changed[strings.TrimPrefix(receiver, "*")] = true
		}
		for _, a := range aliases {
			changed[a] = true
		}
	}
	ids = make([]int64, len(news))
	for i, n := range news {
		k := n.kind + "\x00" + n.qname
		if c := byKey[k]; len(c) > 0 {
			o := &old[c[0]]
			byKey[k] = c[1:]
			o.matched = true
			ids[i] = o.id
			if !o.same(n) {
				mark(n.name, n.receiver, n.aliases)
				mark(o.name, o.receiver, o.aliases)
			}
			continue
		}
		mark(n.name, n.receiver, n.aliases)
	}
	for i := range old {
		if !old[i].matched {
			gone = append(gone, old[i].id)
			mark(old[i].name, old[i].receiver, old[i].aliases)
		}
	}
	for _, name := range reordered(old, news) {
		changed[name] = true
	}
	for n := range changed {
		if n != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return ids, gone, names
}

// reordered lists the names whose definitions in the file come in another
// order than before (by line): ties between candidates of one name go by line.
func reordered(old []oldSymbol, news []newSymbol) []string {
	before := map[string][]string{}
	o := slices.Clone(old)
	slices.SortStableFunc(o, func(a, b oldSymbol) int { return a.startLine - b.startLine })
	for _, s := range o {
		before[s.name] = append(before[s.name], s.kind+"\x00"+s.qname)
	}
	after := map[string][]string{}
	n := slices.Clone(news)
	slices.SortStableFunc(n, func(a, b newSymbol) int { return a.startLine - b.startLine })
	for _, s := range n {
		after[s.name] = append(after[s.name], s.kind+"\x00"+s.qname)
	}
	var out []string
	for name, seq := range after {
		if b, ok := before[name]; ok && len(b) > 1 && !slices.Equal(b, seq) {
			out = append(out, name)
		}
	}
	return out
}
