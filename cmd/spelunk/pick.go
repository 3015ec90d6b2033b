package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// selector narrows a name to one definition: --path, --pick N.
type selector struct {
	path string
	pick int // 1-based; 0: not given
}

func pickOf(path string, pick int) selector { return selector{path: path, pick: pick} }

// lookupSymbol resolves PATH:LINE or a (qualified) name; a Type.member the
// type inherits resolves to its base's definition, with a note saying so.
func lookupSymbol(cmd *cobra.Command, db *pg.DB, rec pg.Repository, arg string, sel selector) (symbols.Symbol, error) {
	ctx := cmd.Context()
	if p, l, ok := strings.Cut(arg, ":"); ok {
		if line, err := strconv.Atoi(l); err == nil {
			if line <= 0 {
				return symbols.Symbol{}, usagef("line numbers start at 1")
			}
			return symbols.At(ctx, db, rec.ID, p, line)
		}
	}
	syms, err := symbols.FindOrInherited(ctx, db, rec.ID, arg, sel.path, false)
	if err != nil {
		if errors.Is(err, symbols.ErrNotFound) {
			return symbols.Symbol{}, fmt.Errorf("no symbol named %q in %s (try spelunk search %q)", arg, rec.Root, arg)
		}
		return symbols.Symbol{}, err
	}
	return choose(arg, syms, sel, "definitions")
}

// lookupField resolves what a person types to a struct or class field
// ("balance", "Account.balance"), inherited ones included.
func lookupField(cmd *cobra.Command, db *pg.DB, rec pg.Repository, arg string, sel selector) (symbols.Symbol, error) {
	fields, err := symbols.FindOrInherited(cmd.Context(), db, rec.ID, arg, sel.path, true)
	if err != nil {
		if errors.Is(err, symbols.ErrNotFound) {
			return symbols.Symbol{}, fmt.Errorf("no field named %q in %s (fields are Type.field; spelunk symbols --kind field lists them)", arg, rec.Root)
		}
		return symbols.Symbol{}, err
	}
	return choose(arg, fields, sel, "fields")
}

// choose decides which of the matches of arg a command acts on, and never
// silently: --pick N takes the Nth; one definition, or one that arg names
// exactly (its qualified name) or that is the only one outside tests, is
// taken with a note naming the others on stderr; several equally good ones
// are listed and nothing is done (a usage error: qualify the name, or --pick).
func choose(arg string, syms []symbols.Symbol, sel selector, what string) (symbols.Symbol, error) {
	syms = distinctDefs(syms)
	if sel.pick > 0 {
		if sel.pick > len(syms) {
			return symbols.Symbol{}, usagef("--pick %d: %q has %d %s", sel.pick, arg, len(syms), what)
		}
		return syms[sel.pick-1], nil
	}
	if inherited(arg, syms[0]) {
		fmt.Fprintf(os.Stderr, "%s → defined in %s (%s:%d)\n", arg, syms[0].Parent, syms[0].Path, syms[0].StartLine)
	}
	if len(syms) == 1 {
		return syms[0], nil
	}
	best := bestTier(arg, syms)
	if len(best) == 1 {
		fmt.Fprintf(os.Stderr, "%d %s match %q; using %s (%s:%d); the others: %s\n", len(syms), what, arg,
			best[0].QualifiedName, best[0].Path, best[0].StartLine, others(syms, best[0].ID))
		return best[0], nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s match %q: qualify the name (Type.name), or add --pick N or --path\n", len(syms), what, arg)
	for i, s := range syms {
		fmt.Fprintf(&b, "  %d  %s %s  %s:%d\n", i+1, s.Kind, s.QualifiedName, s.Path, s.StartLine)
	}
	return symbols.Symbol{}, usagef("%s", strings.TrimRight(b.String(), "\n"))
}

// bestTier are the matches arg names best: those whose qualified name it is,
// else those whose name it is, else all (a case-insensitive match); of those,
// the ones outside tests when there are any.
func bestTier(arg string, syms []symbols.Symbol) []symbols.Symbol {
	var tier []symbols.Symbol
	for _, test := range []func(symbols.Symbol) bool{
		func(s symbols.Symbol) bool { return s.QualifiedName == arg },
		func(s symbols.Symbol) bool { return s.Name == arg },
		func(symbols.Symbol) bool { return true },
	} {
		for _, s := range syms {
			if test(s) {
				tier = append(tier, s)
			}
		}
		if len(tier) > 0 {
			break
		}
	}
	var code []symbols.Symbol
	for _, s := range tier {
		if !s.IsTest {
			code = append(code, s)
		}
	}
	if len(code) > 0 {
		return code
	}
	return tier
}

// distinctDefs drops repeated definitions of one qualified name in one file
// (a property's getter and setter, overloads): one definition to pick.
func distinctDefs(syms []symbols.Symbol) []symbols.Symbol {
	seen := map[string]bool{}
	out := syms[:0:0]
	for _, s := range syms {
		k := s.Path + "\x00" + s.QualifiedName
		if !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}

// inherited says s answers arg as a member of a base: arg is Type.member and
// s is the member of another type.
func inherited(arg string, s symbols.Symbol) bool {
	typ, member, ok := strings.Cut(arg, ".")
	return ok && s.Name == member && s.Parent != "" && s.Parent != typ && !strings.HasSuffix(s.Parent, "."+typ) &&
		!strings.EqualFold(s.QualifiedName, arg)
}

// others names the matches besides the one taken, with their --pick numbers.
func others(syms []symbols.Symbol, taken int64) string {
	var out []string
	for i, s := range syms {
		if s.ID != taken && len(out) < 5 {
			out = append(out, fmt.Sprintf("%s (--pick %d)", s.QualifiedName, i+1))
		}
	}
	if n := len(syms) - 1 - len(out); n > 0 {
		out = append(out, fmt.Sprintf("%d more", n))
	}
	return strings.Join(out, ", ")
}
