package contradict

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind tells words, values and clause boundaries apart.
type tokKind uint8

const (
	tWord tokKind = iota
	tValue
	tBreak
)

// token is one word, value or clause boundary of a statement.
type token struct {
	kind    tokKind
	surface string // as written
	lower   string // words: lower case
	key     string // words: canonical stem; values: "type:normalised"
	vtype   string // values: number, version, duration, size, percent, path, url, email
	neg     bool   // a negator: carries polarity, no content
	flip    bool   // the negative side of an antonym pair: flips polarity, keeps content
	stop    bool   // a stop word: no content
	shaped  bool   // looks like a name: PostgreSQL, API, snake_case, mid-sentence capital
	start   bool   // first word of a sentence
}

var (
	reURL      = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>"'` + "`" + `()]+`)
	reQuantity = regexp.MustCompile(`^(?i)(\d+(?:\.\d+)?)\s*(milliseconds?|msecs?|ms|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|kib|kb|mib|mb|gib|gb|tib|tb|bytes?|percent)\b`)
	reShortQty = regexp.MustCompile(`^(?i)(\d+(?:\.\d+)?)(s|m|h|d|w|b)\b`)
	rePercent  = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*%`)
	rePath     = regexp.MustCompile(`^[~.]*/?[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]*)+|^/[A-Za-z0-9_.\-]+`)
	reFile     = regexp.MustCompile(`^[A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*\.(?:go|py|js|mjs|cjs|ts|tsx|jsx|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|yaml|yml|json|toml|ini|cfg|conf|md|sql|sh|txt|env|lock|mod|sum|proto|html|css|scss|xml|csv|tf)\b`)
	reClock    = regexp.MustCompile(`^(?:[01]?\d|2[0-3]):[0-5]\d\b`) // a time of day: 02:00, 16:30
	reAddress  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9.\-]*):(\d{2,5})\b`)
	reVersion  = regexp.MustCompile(`^[vV]?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.\-]*[0-9A-Za-z])?`)
	reNumber   = regexp.MustCompile(`^\d+(?:,\d{3})*(?:\.\d+)?`)
	reEmail    = regexp.MustCompile(`^[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+`)
)

// matchWord returns the word at the start of s: a letter, then letters, digits
// and underscores, and an apostrophe suffix ("isn't", "user's"); "" when s does
// not start with a letter. (A regexp did this at a tenth of the speed.)
func matchWord(s string) string {
	if s == "" || !isLetter(s[0]) {
		return ""
	}
	i := 1
	for i < len(s) && (isLetter(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '_') {
		i++
	}
	if i+1 < len(s) && s[i] == '\'' && isLetter(s[i+1]) {
		j := i + 2
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		return s[:j]
	}
	return s[:i]
}

// identifier extends the word m at the start of s over hyphens when the whole
// is an identifier with a digit in it: "eu-west-1", "x86-64", "SHA-256" name one
// thing (a region, an architecture), where "two-factor" is two words.
func identifier(s, m string) string {
	end := len(m)
	for end+1 < len(s) && s[end] == '-' {
		next := matchWord(s[end+1:])
		if next == "" {
			next = leadingDigits(s[end+1:])
		}
		if next == "" || strings.ContainsRune(next, '\'') {
			break
		}
		end += 1 + len(next)
	}
	if end == len(m) || !strings.ContainsAny(s[:end], "0123456789") {
		return m
	}
	return s[:end]
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || isLetter(s[i])) {
		i++
	}
	return s[:i]
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// maxTokenBytes is the longest value or word recognised as one token.
const maxTokenBytes = 256

// breakRunes end a clause wherever they appear between tokens.
const breakRunes = ";,.:!?()[]{}—–"

// sentenceRunes end a sentence (the next word's capital says nothing about names).
const sentenceRunes = ";.:!?"

// quoteReplacer folds typographic apostrophes and drops quotes (built once: a
// Replacer is costly to make and safe to share).
var quoteReplacer = strings.NewReplacer("’", "'", "‘", "'", "`", " ", "\"", " ", "“", " ", "”", " ")

// tokenize splits text into words, values and clause boundaries.
func tokenize(text string) []token {
	text = quoteReplacer.Replace(text)
	// About one token per five bytes of prose: sized once, not grown.
	toks := make([]token, 0, len(text)/5+4)
	start := true
	for i := 0; i < len(text); {
		rest := text[i:]
		r, size := utf8.DecodeRuneInString(rest)
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		if r == ':' && (i == 0 || text[i-1] == ' ') {
			// ":9090" is a port; a colon that ends a clause follows a word.
			if n, vs := barePort(rest[:min(len(rest), maxTokenBytes)]); n > 0 {
				toks = append(toks, vs...)
				start = false
				i += n
				continue
			}
		}
		if strings.ContainsRune(breakRunes, r) {
			toks = append(toks, token{kind: tBreak, surface: string(r)})
			if strings.ContainsRune(sentenceRunes, r) {
				start = true
			}
			i += size
			continue
		}
		// The regexps only ever look at the next token or two; a bounded window keeps
		// each match independent of the text's length.
		window := rest[:min(len(rest), maxTokenBytes)]
		if n, vs := matchValue(window); n > 0 {
			toks = append(toks, vs...)
			start = false
			i += n
			continue
		}
		if m := matchWord(window); m != "" {
			m = identifier(window, m)
			toks = append(toks, words(m, start)...)
			start = false
			i += len(m)
			continue
		}
		i += size // other punctuation, hyphens, symbols: separators
	}
	return particles(phrasalVerbs(rates(intervals(spellNumbers(toks)))))
}

// particleVerbs make a following "on" a state ("turned on", "is on"), not a
// preposition, so it lines up with "off".
var particleVerbs = setOf([]string{
	"turn", "turns", "turned", "turning", "switch", "switches", "switched", "toggle",
	"toggled", "flip", "flipped", "is", "are", "was", "were", "be", "stays", "stay",
	"stayed", "left", "kept", "keep", "keeps",
})

func particles(toks []token) []token {
	for i := range toks {
		if toks[i].kind != tWord || toks[i].lower != "on" {
			continue
		}
		last := i+1 == len(toks) || toks[i+1].kind == tBreak
		if last || (i > 0 && particleVerbs[toks[i-1].lower]) {
			toks[i].stop = false
		}
	}
	return toks
}

// matchValue recognises a value at the start of s: URL, quantity with a unit,
// path or file name, host:port, version, number. It returns the bytes consumed.
// Cheap checks on the first word pick the regexps worth trying.
func matchValue(s string) (int, []token) {
	first := s
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		first = s[:i]
	}
	digit := s[0] >= '0' && s[0] <= '9'
	// An address (a service account, a mailing list) names one thing.
	if strings.Contains(first, "@") {
		if m := reEmail.FindString(s); m != "" {
			return len(m), []token{value(m, "email", strings.ToLower(m))}
		}
	}
	if strings.Contains(first, "://") {
		if m := reURL.FindString(s); m != "" {
			m = strings.TrimRight(m, ".,;:!?")
			return len(m), []token{value(m, "url", normURL(m))}
		}
	}
	if digit {
		if m := rePercent.FindStringSubmatch(s); m != nil {
			return len(m[0]), []token{value(m[0], "percent", trimNumber(m[1]))}
		}
		if m := reQuantity.FindStringSubmatch(s); m != nil {
			if t, ok := quantity(m[0], m[1], m[2]); ok {
				return len(m[0]), []token{t}
			}
		}
		if m := reShortQty.FindStringSubmatch(s); m != nil {
			if t, ok := quantity(m[0], m[1], m[2]); ok {
				return len(m[0]), []token{t}
			}
		}
	}
	if strings.Contains(first, ":") {
		if m := reClock.FindString(s); m != "" && digit {
			return len(m), []token{value(m, "time", strings.TrimPrefix(m, "0"))}
		}
		if m := reAddress.FindStringSubmatch(s); m != nil {
			host := words(m[1], false)
			return len(m[0]), append(host, value(m[2], "number", trimNumber(m[2])))
		}
	}
	if strings.Contains(first, "-") {
		// A cloud region: "eu-west-1", "us-central1".
		if m := reRegion.FindString(s); m != "" {
			return len(m), []token{value(m, "region", strings.ToLower(m))}
		}
	}
	if strings.Contains(first, "/") {
		if m := rePath.FindString(s); m != "" && strings.Contains(m, "/") {
			m = strings.TrimRight(m, ".,;:")
			if m != "/" {
				return len(m), []token{value(m, "path", normPath(m))}
			}
		}
	}
	if strings.Contains(first, ".") && !digit {
		if m := reFile.FindString(s); m != "" {
			return len(m), []token{value(m, "path", normPath(m))}
		}
	}
	if digit || s[0] == 'v' || s[0] == 'V' {
		if m := reVersion.FindString(s); m != "" {
			return len(m), []token{value(m, "version", strings.TrimPrefix(strings.ToLower(m), "v"))}
		}
	}
	if digit {
		if m := reNumber.FindString(s); m != "" {
			return len(m), []token{value(m, "number", trimNumber(strings.ReplaceAll(m, ",", "")))}
		}
	}
	return 0, nil
}

var reRegion = regexp.MustCompile(`^(?:[a-z]{2}-(?:north|south|east|west|central|northeast|northwest|southeast|southwest)-\d|[a-z]+-(?:north|south|east|west|central|northeast|northwest|southeast|southwest)\d)\b`)

var reBarePort = regexp.MustCompile(`^:(\d{2,5})\b`)

// barePort reads ":9090" as "port 9090".
func barePort(s string) (int, []token) {
	m := reBarePort.FindStringSubmatch(s)
	if m == nil {
		return 0, nil
	}
	return len(m[0]), append(words("port", false), value(m[1], "number", trimNumber(m[1])))
}

func value(surface, vtype, norm string) token {
	return token{kind: tValue, surface: surface, vtype: vtype, key: vtype + ":" + norm}
}

// words turns one matched word into tokens, expanding contractions: "isn't" is
// "is" + "not".
func words(w string, start bool) []token {
	lower := strings.ToLower(w)
	neg := false
	if i := strings.IndexByte(lower, '\''); i >= 0 {
		suffix := lower[i:]
		lower, w = lower[:i], w[:i]
		if suffix == "'t" && strings.HasSuffix(lower, "n") {
			neg = true
			lower, w = strings.TrimSuffix(lower, "n"), strings.TrimSuffix(w, "n")
			switch lower {
			case "ca":
				lower = "can"
			case "wo":
				lower = "will"
			case "sha":
				lower = "shall"
			}
		}
	}
	out := []token{word(w, lower, start)}
	if neg {
		out = append(out, word("not", "not", false))
	}
	return out
}

func word(surface, lower string, start bool) token {
	t := token{kind: tWord, surface: surface, lower: lower, start: start}
	switch {
	case negatorSet[lower], absenceSet[lower]:
		t.neg = true
	case stopSet[lower] && !acronym(surface):
		// An acronym is a name, not the stop word it spells: "the US region",
		// "GET requests".
		t.stop = true
	}
	t.key, t.flip = canonical(lower)
	// An acronym is not stemmed: "HTTPS" is not the plural of "HTTP".
	if acronym(surface) {
		t.key = lower
	}
	// The plural of an acronym ("PRs", "VMs") is the acronym.
	if base, ok := strings.CutSuffix(surface, "s"); ok && acronym(base) {
		t.key, _ = canonical(strings.ToLower(base))
	}
	t.shaped = nameShaped(surface, start)
	return t
}

// canonical is the stem a word is compared by, with synonyms merged and the
// negative side of an antonym pair mapped to its positive side (flip).
// minLessBase is the shortest base a word in -less is read as the absence of:
// "stateless", "passwordless", not "unless" or "bless".
const minLessBase = 4

// notLess are words in -less that do not mean "without" their base.
var notLess = setOf([]string{"regardless", "nevertheless", "nonetheless", "doubtless"})

// lessBase returns the base of a word in -less that means "without" it.
func lessBase(lower string) (string, bool) {
	base, ok := strings.CutSuffix(lower, "less")
	if !ok || len(base) < minLessBase || notLess[lower] {
		return "", false
	}
	return base, true
}

// minUnBase is the shortest base a word in un- is read as the negation of:
// "uncompressed", "unlocked", not "unit" or "unique".
const minUnBase = 5

// notUnStarts are the starts of bases of words in un- that are no negation:
// under-, unit-, unique, union, universe, uniform, unicode.
var notUnStarts = []string{"der", "it", "iq", "ion", "iv", "if", "ic"}

// unBase returns the base of a word in un- that means "not" it.
func unBase(lower string) (string, bool) {
	base, ok := strings.CutPrefix(lower, "un")
	if !ok || len(base) < minUnBase || antonymStems[stem(lower)] != "" {
		return "", false
	}
	for _, p := range notUnStarts {
		if strings.HasPrefix(base, p) {
			return "", false
		}
	}
	return base, true
}

func canonical(lower string) (string, bool) {
	// "stateless" is "without state": the negative side of its base word.
	if base, ok := lessBase(lower); ok {
		k, _ := canonical(base)
		return k, true
	}
	// "uncompressed" is "not compressed": the negative side of its base word.
	if base, ok := unBase(lower); ok {
		k, _ := canonical(base)
		return k, true
	}
	s := stem(lower)
	if syn, ok := synonymStems[s]; ok {
		s = syn
	}
	pos, flip := antonymStems[s]
	if flip {
		s = pos
		if syn, ok := synonymStems[s]; ok {
			s = syn
		}
	}
	return s, flip
}

// acronym: two or more letters, all capitals.
func acronym(w string) bool {
	if len(w) < 2 {
		return false
	}
	for _, r := range w {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// nameShaped reports whether a word as written looks like a proper name or an
// identifier: snake_case, camelCase, PostgreSQL, an acronym, or a capital in the
// middle of a sentence.
func nameShaped(w string, start bool) bool {
	// snake_case, and letters with digits: k6, s3, ec2 are names.
	if strings.ContainsRune(w, '_') || (strings.ContainsAny(w, "0123456789") && strings.IndexFunc(w, unicode.IsLetter) >= 0) {
		return true
	}
	upper, lowerSeen, camel := 0, false, false
	for i, r := range w {
		switch {
		case unicode.IsUpper(r):
			upper++
			if lowerSeen && i > 0 {
				camel = true
			}
		case unicode.IsLower(r):
			lowerSeen = true
		}
	}
	switch {
	case camel:
		return true
	case upper >= 2 && !lowerSeen:
		return true
	case upper >= 1 && !start:
		return true
	}
	return false
}

// articleQuantity reads "a day", "an hour" at toks[i] as one unit of a duration
// ("kept for a month" is "kept for 30 days"), unless a frequency counts it
// ("once a day", "twice per week") or a noun follows ("a second replica").
func articleQuantity(toks []token, i int) (token, bool) {
	t := toks[i]
	if t.kind != tWord || (t.lower != "a" && t.lower != "an") || i+1 >= len(toks) || toks[i+1].kind != tWord {
		return token{}, false
	}
	if i > 0 && repeatWords[toks[i-1].lower] > 0 {
		return token{}, false
	}
	if i+2 < len(toks) && toks[i+2].kind == tWord && !toks[i+2].stop {
		return token{}, false
	}
	unit := toks[i+1]
	if u, ok := unitScale[unit.lower]; !ok || u.vtype != "duration" || len(unit.lower) < 3 {
		return token{}, false
	}
	return quantity(t.surface+" "+unit.surface, "1", unit.lower)
}

// spellNumbers turns spelled-out numbers into values: "two approving reviews",
// "one day". "one" and "single" count only before a content word ("the system
// one" is a pronoun).
func spellNumbers(toks []token) []token {
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if q, ok := articleQuantity(toks, i); ok {
			out = append(out, q)
			i++
			continue
		}
		n, ok := numberWords[t.lower]
		if t.kind != tWord || !ok {
			out = append(out, t)
			continue
		}
		var next *token
		if i+1 < len(toks) && toks[i+1].kind == tWord {
			next = &toks[i+1]
		}
		if (n == 1) && (next == nil || next.stop || next.neg) {
			out = append(out, t)
			continue
		}
		num := trimNumber(formatFloat(n))
		if next != nil {
			if q, ok := quantity(t.surface+" "+next.surface, num, next.lower); ok {
				out = append(out, q)
				i++
				continue
			}
		}
		out = append(out, value(t.surface, "number", num))
	}
	return out
}

// phrasalParticles join the verb before them into one word: "times out" is the
// "timeout" of the other statement, "rolled back" its "rollback". (on and off
// are states, over and in prepositions too often, "up to" a bound.)
var phrasalParticles = setOf([]string{"out", "up", "down", "back"})

// notPhrasal end in a particle without being a verb and it.
var notPhrasal = setOf([]string{"without", "throughout", "layout", "markdown"})

// minPhrasalBase is the shortest verb a word is read as joined to a particle.
const minPhrasalBase = 3

// phrasalVerbs gives a verb and its particle, as two words or as one, one key:
// the verb's stem and the particle ("timeout", "times out": "timout").
func phrasalVerbs(toks []token) []token {
	out := toks[:0]
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tWord || t.stop || t.neg || t.flip || t.shaped {
			out = append(out, t)
			continue
		}
		if i+1 < len(toks) && toks[i+1].kind == tWord && phrasalParticles[toks[i+1].lower] && !(i+2 < len(toks) && toks[i+2].lower == "to") {
			t.surface += " " + toks[i+1].surface
			t.key = stem(t.lower) + toks[i+1].lower
			out = append(out, t)
			i++
			continue
		}
		if !notPhrasal[t.lower] {
			for p := range phrasalParticles {
				if base, ok := strings.CutSuffix(t.lower, p); ok && len(base) >= minPhrasalBase {
					t.key = stem(base) + p
					break
				}
			}
		}
		out = append(out, t)
	}
	return out
}
