package main

import (
	"strings"

	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// Flag checks shared by the commands: a value that makes no sense is a usage
// error (exit 2) naming the valid values, never silently replaced by a default.

// intIn checks lo <= v <= hi for --name.
func intIn(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return usagef("--%s must be between %d and %d (got %d)", name, lo, hi, v)
	}
	return nil
}

// floatIn checks lo <= v <= hi for --name.
func floatIn(name string, v, lo, hi float64) error {
	if v < lo || v > hi {
		return usagef("--%s must be between %g and %g (got %g)", name, lo, hi, v)
	}
	return nil
}

// oneOf checks that --name is empty or one of valid.
func oneOf(name, v string, valid ...string) error {
	if v == "" {
		return nil
	}
	for _, ok := range valid {
		if v == ok {
			return nil
		}
	}
	return usagef("--%s must be one of %s (got %q)", name, strings.Join(valid, ", "), v)
}

// symbolKinds are the values of symbols --kind.
var symbolKinds = symbols.Kinds

// lexicalScorers are the values of --lexical.
var lexicalScorers = []string{"bm25"}

// expandModes are the values of --expand.
var expandModes = []string{search.ExpandOn, search.ExpandOff}

// expandHelp is the help of --expand.
const expandHelp = "a question's words also look for the code tokens learned for them (on, off; default " + search.DefaultExpand + ")"

// fusions are the values of --fusion.
var fusions = []string{search.FusionLearned, search.FusionRRF}

// Upper bounds: far past any useful value, low enough that a typo cannot ask the
// database for millions of rows.
const (
	maxResults  = 1000
	maxEfSearch = 1000
	maxBudget   = 1 << 20
	maxRRFK     = 1000
)

// checkSearchOptions validates the flags of spelunk search.
func checkSearchOptions(o search.Options) error {
	checks := []error{
		intIn("limit", o.Limit, 1, maxResults),
		intIn("budget", o.Budget, 0, maxBudget),
		intIn("ef-search", o.EfSearch, 1, maxEfSearch),
		floatIn("k", o.K, 0, maxRRFK),
		floatIn("test-factor", o.TestFactor, 0, 1),
		oneOf("lexical", o.Lexical, lexicalScorers...),
		oneOf("fusion", o.Fusion, fusions...),
		oneOf("expand", o.Expand, expandModes...),
	}
	if o.HalfLife < 0 {
		checks = append(checks, usagef("--half-life must not be negative (got %s)", o.HalfLife))
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}
