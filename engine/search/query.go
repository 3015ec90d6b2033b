package search

import (
	"strings"
	"unicode"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// maxQueryBytes bounds what a query may cost: longer input is cut (at a rune
// boundary) rather than rejected, since pasted text is a legitimate question.
const maxQueryBytes = 2048

// plan is a query after analysis.
type plan struct {
	text        string
	kind        QueryKind
	identifiers []string // code-like tokens as typed: isEligibleForRefund, res.send, Engine.Run
	words       []string // lower-case words for the lexical channel, stop words dropped
}

func analyze(q string, force QueryKind) plan {
	q = strings.TrimSpace(q)
	if len(q) > maxQueryBytes {
		cut := maxQueryBytes
		for cut > 0 && !isRuneStart(q[cut]) {
			cut--
		}
		q = q[:cut]
	}
	p := plan{text: q}
	fields := strings.FieldsFunc(q, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '$')
	})
	for _, f := range fields {
		f = strings.Trim(f, ".")
		if f != "" && looksLikeIdentifier(f) {
			p.identifiers = append(p.identifiers, f)
		}
	}
	seen := map[string]bool{}
	for _, w := range embed.Tokenize(q) {
		if seen[w] || stopWords[w] {
			continue
		}
		seen[w] = true
		p.words = append(p.words, w)
	}
	// Whole identifiers are indexed lower-cased too (index.SearchText): include them
	// so an exact identifier outranks documents that merely share its words.
	for _, id := range p.identifiers {
		for _, part := range strings.Split(id, ".") {
			w := strings.ToLower(part)
			if w != "" && !seen[w] && len(embed.Tokenize(part)) > 1 {
				seen[w] = true
				p.words = append(p.words, w)
			}
		}
	}
	if len(p.words) == 0 { // a query made only of stop words still means something
		for _, w := range embed.Tokenize(q) {
			if !seen[w] {
				seen[w] = true
				p.words = append(p.words, w)
			}
		}
	}
	p.kind = force
	if p.kind == "" {
		p.kind = Semantic
		if len(fields) == 1 && len(p.identifiers) == 1 || len(fields) <= 2 && len(p.identifiers) == len(fields) && anyCodeShaped(p.identifiers) {
			p.kind = Identifier
		}
	}
	if p.kind == Semantic {
		// In a question, "customer" is a word, not a name: only tokens that are
		// unmistakably code (refundPolicy, res.send) go to the symbol channel.
		var code []string
		for _, id := range p.identifiers {
			if anyCodeShaped([]string{id}) {
				code = append(code, id)
			}
		}
		p.identifiers = code
	}
	return p
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
