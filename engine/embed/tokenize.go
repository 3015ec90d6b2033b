package embed

import (
	"unicode"
	"unicode/utf8"
)

// Character classes used by the tokenizer.
const (
	clsSep   uint8 = iota // anything that is not part of a word
	clsLower              // lower-case letters, caseless letters (CJK, ...) and combining marks
	clsUpper              // upper-case and title-case letters
	clsDigit              // decimal digits
)

// asciiClass classifies every ASCII byte once so the hot path is a table load.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clsLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clsUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clsDigit
	}
	return t
}()

// classAt returns the class and byte width of the rune starting at s[i].
// Invalid UTF-8 decodes to a one-byte separator, so no input can stall the scan.
func classAt(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && n <= 1:
		return clsSep, 1
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return clsUpper, n
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return clsLower, n
	case unicode.IsDigit(r):
		return clsDigit, n
	}
	return clsSep, n
}

// tokenizer yields the identifier-aware, lower-cased tokens of a string one at a
// time without allocating (the returned slice is reused by the next call).
type tokenizer struct {
	s   string
	pos int    // scan position in s
	buf []byte // lower-cased bytes of the current token
}

func (t *tokenizer) reset(s string) {
	t.s, t.pos = s, 0
}

// next returns the next token, or nil when the text is exhausted.
//
// A word is a maximal run of letters, marks and digits; inside a word a token
// boundary falls between a lower-case letter and an upper-case one
// ("isEligible" -> is|Eligible), before the last capital of a capital run that
// is followed by a lower-case letter ("HTTPServer" -> HTTP|Server), and between
// letters and digits ("Server2" -> Server|2). A capital run followed by a lone
// plural "s" stays whole ("parseURLs" -> parse|URLs, "IDsFor" -> IDs|For).
func (t *tokenizer) next() []byte {
	s := t.s
	i := t.pos
	// Skip separators.
	var cls uint8
	var n int
	for i < len(s) {
		cls, n = classAt(s, i)
		if cls != clsSep {
			break
		}
		i += n
	}
	if i >= len(s) {
		t.pos = i
		return nil
	}
	start := i
	prev := cls
	i += n
	for i < len(s) {
		cur, w := classAt(s, i)
		if cur == clsSep {
			break
		}
		if boundary(s, prev, cur, i+w) {
			break
		}
		prev = cur
		i += w
	}
	t.pos = i
	t.buf = appendLower(t.buf[:0], s[start:i])
	return t.buf
}

// boundary reports whether a token ends before the rune of class cur whose
// successor starts at s[after].
func boundary(s string, prev, cur uint8, after int) bool {
	switch {
	case (prev == clsDigit) != (cur == clsDigit):
		return true
	case prev == clsLower && cur == clsUpper:
		return true
	case prev == clsUpper && cur == clsUpper && after < len(s):
		nc, nw := classAt(s, after)
		if nc != clsLower {
			return false
		}
		// "URLs", "IDsFor": a lone plural s closes the acronym.
		if s[after] == 's' {
			end := after + nw
			if end >= len(s) {
				return false
			}
			if c, _ := classAt(s, end); c != clsLower {
				return false
			}
		}
		return true
	}
	return false
}

// appendLower appends the lower-case form of word to dst.
func appendLower(dst []byte, word string) []byte {
	for i := 0; i < len(word); {
		c := word[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(word[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += n
	}
	return dst
}

// Tokens yields the tokens of a text one at a time, as [Tokenize] splits
// it, without allocating: the slice Next returns is reused by the next call.
type Tokens struct{ t tokenizer }

// Reset starts over on text.
func (ts *Tokens) Reset(text string) { ts.t.reset(text) }

// Next returns the next token, or nil when the text is exhausted.
func (ts *Tokens) Next() []byte { return ts.t.next() }

// AppendLower appends the lower-case form of word to dst, rune by rune as
// strings.ToLower maps it (invalid UTF-8 becomes U+FFFD).
func AppendLower(dst []byte, word string) []byte { return appendLower(dst, word) }

// Tokenize splits text into lower-cased word tokens the way both the embedders
// and lexical search see it: words are runs of letters and digits, and
// identifiers are split on camelCase, PascalCase, acronyms, snake_case,
// kebab-case and letter/digit boundaries:
//
//	"isEligibleForRefund" -> [is eligible for refund]
//	"HTTPServer2"         -> [http server 2]
//	"parse_csv-header"    -> [parse csv header]
//
// Invalid UTF-8 acts as a separator. Tokenize never returns empty tokens.
func Tokenize(text string) []string {
	var t tokenizer
	t.reset(text)
	// Collect every token into one buffer and one string, then slice it: two
	// allocations for the text instead of one per token.
	var all []byte
	var ends []int
	for tok := t.next(); tok != nil; tok = t.next() {
		all = append(all, tok...)
		ends = append(ends, len(all))
	}
	if len(ends) == 0 {
		return nil
	}
	joined := string(all)
	out := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i] = joined[start:end]
		start = end
	}
	return out
}

// stopWords are English function words and programming-language keywords:
// frequent in code and prose alike, they carry little meaning for retrieval and
// pull every text towards the same region of the vector space.
var stopWords = []string{
	// English.
	"a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
	"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
	"can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "from", "further",
	"had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
	"i", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself",
	"no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves",
	"out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their",
	"theirs", "them", "themselves", "then", "there", "these", "they", "those", "through", "to", "too",
	"under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
	"whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
	"s", "t", "d", "ll", "m", "re", "ve", "also", "may", "might", "must", "shall", "via", "etc", "eg", "ie",
	// Keywords and boilerplate shared by common languages.
	"func", "function", "fn", "def", "lambda", "return", "returns", "const", "var", "let", "val",
	"self", "this", "cls", "super", "import", "imports", "package", "module", "export", "exports",
	"require", "use", "using", "namespace",
	"nil", "null", "none", "undefined", "true", "false", "void",
	"if", "else", "elif", "for", "foreach", "switch", "break", "continue",
	"goto", "try", "catch", "except", "finally", "throw", "throws", "raise", "yield", "await", "async",
	"new", "typeof", "instanceof", "pass", "struct", "class", "interface", "enum", "type", "impl",
	"trait", "pub", "public", "private", "protected", "static", "final", "abstract", "extends", "implements",
	"override", "virtual", "mut", "ref", "go", "defer",
	"int", "uint", "bool", "boolean", "err", "ctx", "args", "kwargs", "arg", "param", "params", "todo", "fixme",
}

var stopSet = func() map[string]struct{} {
	m := make(map[string]struct{}, len(stopWords))
	for _, w := range stopWords {
		m[w] = struct{}{}
	}
	return m
}()

// IsStopWord reports whether tok (a lower-case token from Tokenize) is an
// English function word or a programming-language keyword that the GloVe
// embedder ignores.
func IsStopWord(tok string) bool {
	_, ok := stopSet[tok]
	return ok
}

// isStop is IsStopWord for a byte slice, without allocating.
func isStop(tok []byte) bool {
	_, ok := stopSet[string(tok)]
	return ok
}
