package search

import (
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// MaxQueryBytes bounds what a query may cost: longer input (a whole log pasted)
// is cut at a rune boundary rather than rejected, and the response says so.
const MaxQueryBytes = 16 << 10

// longQueryBytes: from this length on a query is a document (an issue, a stack
// trace, a log) rather than a question, and its words are budgeted.
const longQueryBytes = 400

// Term budgets: how many words go to the lexical channel and how many
// identifiers to the symbol channel, so a 5 kB issue costs about what a question
// costs.
const (
	maxQueryTerms       = 32
	maxQueryIdentifiers = 8
	maxLongLiterals     = 2
)

// plan is a query after analysis.
type plan struct {
	text        string
	kind        QueryKind
	identifiers []string       // code-like tokens as typed: isEligibleForRefund, res.send, Engine.Run
	words       []string       // lower-case words for the lexical channel, stop words dropped
	weights     map[string]int // how often each word occurs in a long query (absent = 1)
	literals    []literal      // phrases to find verbatim
	mentions    []mention      // frames and path:line mentions
	long        bool           // an issue, trace or log rather than a question
	cut         bool           // the input was longer than MaxQueryBytes
	filter      Filter         // the query's filters and Options.Filter, applied in every channel
	evidence    *queryEvidence // what the channels learn of the query as a whole (nil: not kept)
	expand      []Expansion    // learned terms the lexical channel adds (expand.go)
}

func analyze(q string, force QueryKind) plan {
	q = strings.TrimSpace(q)
	p := plan{}
	if len(q) > MaxQueryBytes {
		q, p.cut = cutAtSpace(q, MaxQueryBytes), true
	}
	p.text = q
	p.long = len(q) >= longQueryBytes || strings.Count(q, "\n") >= 3
	fields := strings.FieldsFunc(q, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '$')
	})
	for _, f := range fields {
		f = strings.Trim(f, ".")
		if f != "" && looksLikeIdentifier(f) {
			p.identifiers = append(p.identifiers, f)
		}
	}
	p.words, p.weights = queryWords(q, p.identifiers, p.long)
	p.literals = extractLiterals(q)
	if p.long {
		p.mentions = extractMentions(q)
		// An issue puts everything in backticks (values, keys, commands): there a
		// quoted span is as strong as its words, no stronger.
		// Only spans that are code-shaped or three words and more are checked, at
		// most maxLongLiterals of them.
		var strong []literal
		for _, l := range p.literals {
			l.quoted = false
			if literalStrength(l) == 1 && len(strong) < maxLongLiterals {
				strong = append(strong, l)
			}
		}
		p.literals = strong
	}
	p.kind = force
	if p.kind == "" {
		p.kind = Semantic
		if len(fields) == 1 && len(p.identifiers) == 1 || len(fields) <= 2 && len(p.identifiers) == len(fields) && anyCodeShaped(p.identifiers) {
			p.kind = Identifier
		}
	}
	if p.kind == Semantic {
		p.identifiers = codeIdentifiers(p.identifiers, append(goPanicNames(q), markedNames(q)...), p.long)
	}
	return p
}

// codeIdentifiers keeps, for a question, the tokens that are unmistakably code
// (refundPolicy, res.send) and the names it marks (frames: Go panic frames,
// backticked and called names, markedNames): "customer" is a word, not a name,
// and neither are `_`, a single letter or GET (isName). A long input keeps the
// most frequent ones, up to maxQueryIdentifiers, marked names first.
func codeIdentifiers(ids, frames []string, long bool) []string {
	count := map[string]int{}
	var code []string
	for _, id := range append(frames, ids...) {
		if !anyCodeShaped([]string{id}) && !slices.Contains(frames, id) || !isName(id) {
			continue
		}
		if count[id] == 0 {
			code = append(code, id)
		}
		count[id]++
	}
	if !long || len(code) <= maxQueryIdentifiers {
		return code
	}
	sort.SliceStable(code, func(i, j int) bool {
		fi, fj := slices.Contains(frames, code[i]), slices.Contains(frames, code[j])
		if fi != fj {
			return fi
		}
		return count[code[i]] > count[code[j]]
	})
	return code[:maxQueryIdentifiers]
}

// queryWords returns the words of q for the lexical channel, stop words dropped,
// with whole identifiers lower-cased too (the index keeps them whole, so an exact
// identifier outranks documents that merely share its words). A long query keeps
// its maxQueryTerms most frequent words (identifiers' words first) and their
// counts.
func queryWords(q string, identifiers []string, long bool) ([]string, map[string]int) {
	count := map[string]int{}
	var words []string
	add := func(w string, n int) {
		if count[w] == 0 {
			words = append(words, w)
		}
		count[w] += n
	}
	for _, w := range embed.Tokenize(q) {
		if !stopWords[w] {
			add(w, 1)
		}
	}
	code := map[string]bool{}
	for _, id := range identifiers {
		for _, part := range strings.Split(id, ".") {
			w := strings.ToLower(part)
			if w != "" && len(embed.Tokenize(part)) > 1 {
				add(w, 1)
				code[w] = true
			}
		}
	}
	if len(words) == 0 { // a query made only of stop words still means something
		for _, w := range embed.Tokenize(q) {
			add(w, 1)
		}
	}
	if !long {
		return words, nil
	}
	if len(words) > maxQueryTerms {
		sort.SliceStable(words, func(i, j int) bool {
			a, b := words[i], words[j]
			if code[a] != code[b] {
				return code[a]
			}
			return count[a] > count[b]
		})
		words = words[:maxQueryTerms]
	}
	return words, count
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// looksLikeIdentifier accepts a token that could name a definition.
func looksLikeIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || r == '_' || r == '$':
		case unicode.IsDigit(r) || r == '.':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// anyCodeShaped reports whether a token is unmistakably code: camelCase, snake_case,
// a dotted name or an all-caps constant.
func anyCodeShaped(ids []string) bool {
	for _, s := range ids {
		if strings.ContainsAny(s, "._$") {
			return true
		}
		hasUpper, hasLower := false, false
		for i, r := range s {
			if unicode.IsUpper(r) {
				if i > 0 {
					return true // camelCase / PascalCase inner capital
				}
				hasUpper = true
			} else if unicode.IsLower(r) {
				hasLower = true
			}
		}
		if hasUpper && !hasLower && len(s) > 1 {
			return true
		}
	}
	return false
}

// stopWords are English function words and words every question has; they carry no
// signal for code search and make full-text ranking touch most rows.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for from with without into
		onto over under about as is are was were be been being do does did done doing has have had
		having it its this that these those there here what which who whom whose when where why how
		can could should would will shall may might must i me my we our you your he she they them
		their not no so than then too very just also any all some each every get gets got
		where's what's how's does find show me code function method implemented implementation
		handle handles handled happen happens work works used use uses using`) {
		m[w] = true
	}
	return m
}()
