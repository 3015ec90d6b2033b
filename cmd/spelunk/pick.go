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
			sym, err := symbols.At(ctx, db, rec.ID, p, line)
			if errors.Is(err, symbols.ErrNotFound) {
				return sym, explainNoSymbolAt(cmd, db, rec, p, line)
			}
			return sym, err
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
// silently (symbols.Choose): --pick N takes the Nth; a chosen one is taken
// with a note naming the others on stderr; several equally good ones are
// listed and nothing is done (a usage error: qualify the name, or --pick).
func choose(arg string, syms []symbols.Symbol, sel selector, what string) (symbols.Symbol, error) {
	c := symbols.Choose(arg, syms)
	if sel.pick > 0 {
		if sel.pick > len(c.Matches) {
			return symbols.Symbol{}, usagef("--pick %d: %q has %d %s", sel.pick, arg, len(c.Matches), what)
		}
		return c.Matches[sel.pick-1], nil
	}
	if c.Chosen == nil {
		var b strings.Builder
		fmt.Fprintf(&b, "%d %s match %q: qualify the name (Type.name), or add --pick N or --path\n", len(c.Matches), what, arg)
		for i, s := range c.Matches {
			fmt.Fprintf(&b, "  %d  %s %s  %s:%d\n", i+1, s.Kind, s.QualifiedName, s.Path, s.StartLine)
		}
		return symbols.Symbol{}, usagef("%s", strings.TrimRight(b.String(), "\n"))
	}
	chosen := *c.Chosen
	if c.Inherited(arg) {
		fmt.Fprintf(os.Stderr, "%s → defined in %s (%s:%d)\n", arg, chosen.Parent, chosen.Path, chosen.StartLine)
	}
	if len(c.Matches) > 1 {
		fmt.Fprintf(os.Stderr, "%d %s match %q; using %s (%s:%d); the others: %s\n", len(c.Matches), what, arg,
			chosen.QualifiedName, chosen.Path, chosen.StartLine, others(c.Matches, chosen.ID))
	}
	return chosen, nil
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
