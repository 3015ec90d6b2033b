package index

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// The definitions ("collect definitions": a row per name and alias of every
// symbol but modules, parts and blocks), sorted by the keys the steps look
// them up by. Sorted slices of pointers rather than maps of lists: at
// $GOROOT/src four maps of lists took ~60 MB, these take ~10.

func (g *memGraph) indexDefs() {
	var defs []mDef
	for i := range g.symRows {
		s := &g.symRows[i]
		f := g.files[s.file]
		if f == nil || s.kind == "module" || s.kind == "part" || s.kind == "block" {
			continue
		}
		copied := copiedCodeRE.MatchString(f.path)
		defs = append(defs, mDef{s: s, f: f, name: s.name, copied: copied})
		for _, a := range g.aliases[s.id] {
			defs = append(defs, mDef{s: s, f: f, name: a, copied: copied})
		}
	}
	all := make([]*mDef, len(defs))
	for i := range defs {
		all[i] = &defs[i]
	}
	sorted := func(keep func(d *mDef) bool, by func(a, b *mDef) int) []*mDef {
		var out []*mDef
		for _, d := range all {
			if keep == nil || keep(d) {
				out = append(out, d)
			}
		}
		slices.SortFunc(out, by)
		return out
	}
	g.byName = sorted(nil, func(a, b *mDef) int { return strings.Compare(a.name, b.name) })
	g.byFile = sorted(nil, func(a, b *mDef) int {
		return cmp.Or(cmp.Compare(a.s.file, b.s.file), strings.Compare(a.name, b.name))
	})
	g.byDir = sorted(nil, func(a, b *mDef) int {
		return cmp.Or(strings.Compare(a.f.dir, b.f.dir), strings.Compare(a.name, b.name))
	})
	g.byParent = sorted(func(d *mDef) bool { return d.s.parent != 0 }, func(a, b *mDef) int {
		return cmp.Or(cmp.Compare(a.s.parent, b.s.parent), strings.Compare(a.name, b.name))
	})
}

// equalRange is the run of defs (sorted) that key compares equal to; key
// says where a definition stands against the one looked for.
func equalRange(defs []*mDef, key func(d *mDef) int) []*mDef {
	lo := sort.Search(len(defs), func(i int) bool { return key(defs[i]) >= 0 })
	hi := lo + sort.Search(len(defs)-lo, func(i int) bool { return key(defs[lo+i]) > 0 })
	return defs[lo:hi]
}

// defsNamed are the definitions of name anywhere.
func (g *memGraph) defsNamed(name string) []*mDef {
	return equalRange(g.byName, func(d *mDef) int { return strings.Compare(d.name, name) })
}

// defsInFile are the definitions of name in file.
func (g *memGraph) defsInFile(file int64, name string) []*mDef {
	return equalRange(g.byFile, func(d *mDef) int {
		return cmp.Or(cmp.Compare(d.s.file, file), strings.Compare(d.name, name))
	})
}

// defsInDir are the definitions of name in directory dir (a Go package).
func (g *memGraph) defsInDir(dir, name string) []*mDef {
	return equalRange(g.byDir, func(d *mDef) int {
		return cmp.Or(strings.Compare(d.f.dir, dir), strings.Compare(d.name, name))
	})
}

// membersOf are the definitions of name whose parent is parent.
func (g *memGraph) membersOf(parent int64, name string) []*mDef {
	return equalRange(g.byParent, func(d *mDef) int {
		return cmp.Or(cmp.Compare(d.s.parent, parent), strings.Compare(d.name, name))
	})
}

// eachDefByName walks every definition once, grouped by name (uniqueNames,
// untypedFields).
func (g *memGraph) eachDefByName(visit func(name string, defs []*mDef)) {
	for lo := 0; lo < len(g.byName); {
		hi := lo + 1
		for hi < len(g.byName) && g.byName[hi].name == g.byName[lo].name {
			hi++
		}
		visit(g.byName[lo].name, g.byName[lo:hi])
		lo = hi
	}
}
