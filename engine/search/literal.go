package search

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/index"
)

// The literal channel finds definitions whose code contains a phrase verbatim: a
// pasted error message, a quoted string, a struct tag, an environment variable,
// a log line. Bag-of-words BM25 ranks every chunk that shares the common words of
// such a phrase; only the exact text tells the one that holds it.
//
// It needs no index of its own: the lexical channel's postings give the chunks
// holding all of the phrase's words (literalterms.go), and the phrase itself is
// then checked against each candidate's content.

const (
	// maxLiterals bounds how many phrases one query checks.
	maxLiterals = 4
	// literalMinLen is the shortest phrase worth checking (shorter ones are words,
	// which the lexical and symbol channels handle).
	literalMinLen = 4
	// literalMaxLen: longer phrases are cut to their first words; a pasted line
	// rarely survives verbatim beyond that anyway.
	literalMaxLen = 160
	// literalCandidates caps the rows whose content is checked for one phrase
	// (reading and comparing the content costs ~0.1 ms a row); a long input's
	// spans get literalLongCandidates.
	literalCandidates     = 300
	literalLongCandidates = 100
	// literalMaxTerms bounds the words a phrase's candidates must all hold.
	literalMaxTerms = 8
	// literalSelective is the number of hits at or under which a phrase is
	// specific enough to lift its hits above fuzzy matches (see fuse).
	literalSelective = 12
)

// literal is one phrase to find verbatim.
type literal struct {
	text   string // as typed
	quoted bool   // the user marked it ("...", `...`)
}

// extractLiterals finds the phrases of a query worth matching verbatim: quoted
// and backticked spans first; then, without quotes, the query itself when it is
// short (a pasted message or key), split at the spots where a pasted message
// usually carries values of its own (numbers, quoted values, colons).
func extractLiterals(q string) []literal {
	var out []literal
	seen := map[string]bool{}
	add := func(s string, quoted bool) {
		s = strings.TrimSpace(s)
		s = strings.Trim(s, ".,;:!? ")
		if len(s) > literalMaxLen {
			s = cutAtSpace(s, literalMaxLen)
		}
		key := strings.ToLower(s)
		if len(s) < literalMinLen || seen[key] || len(out) >= maxLiterals || len(literalTerms(s)) == 0 {
			return
		}
		seen[key] = true
		out = append(out, literal{text: s, quoted: quoted})
	}
	spans, rest := quotedSpans(q)
	if len(spans) > 1 && quotedLine(q) {
		add(q, true) // "KEY": "value", a pasted line of code: the line itself first
	}
	for _, s := range spans {
		add(s, true)
	}
	if len(spans) > 0 || len(q) > 2*literalMaxLen {
		return out
	}
	add(rest, false)
	for _, seg := range valueSplit(rest) {
		if words := strings.Fields(seg); len(words) >= 3 || len(words) == 2 && anyCodeShaped(words) {
			add(seg, false)
		}
	}
	return out
}

// quotedPieces are the quoted strings of a line; what is left of a pasted line
// of code without them is only the punctuation between them.
var quotedPieces = regexp.MustCompile("\"[^\"]*\"|'[^']*'|`[^`]*`")

// quotedLine reports whether q is quoted strings joined by punctuation alone
// ("PREFERRED_URL_SCHEME": "http", 'a', 'b'): a line pasted from code, found
// verbatim rather than as its pieces only.
func quotedLine(q string) bool {
	rest := quotedPieces.ReplaceAllString(q, "")
	if strings.TrimSpace(rest) == "" {
		return false
	}
	return strings.Trim(rest, " \t:=,;()[]{}") == ""
}

// quotedSpans returns the "double-quoted", `backticked` and 'single-quoted'
// spans of q and q without its quote marks. A single quote counts only at a word
// boundary, so "don't" is not a quote.
func quotedSpans(q string) ([]string, string) {
	var spans []string
	rs := []rune(q)
	var rest strings.Builder
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c != '"' && c != '`' && c != '\'' && c != '“' {
			rest.WriteRune(c)
			continue
		}
		closer := c
		if c == '“' {
			closer = '”'
		}
		if c == '\'' && i > 0 && (unicode.IsLetter(rs[i-1]) || unicode.IsDigit(rs[i-1])) {
			rest.WriteRune(c)
			continue
		}
		j := i + 1
		for j < len(rs) && rs[j] != closer {
			j++
		}
		if j >= len(rs) {
			rest.WriteRune(c)
			continue
		}
		if c == '\'' && j+1 < len(rs) && (unicode.IsLetter(rs[j+1]) || unicode.IsDigit(rs[j+1])) {
			rest.WriteRune(c) // an apostrophe, not a closing quote
			continue
		}
		spans = append(spans, string(rs[i+1:j]))
		rest.WriteString(string(rs[i+1 : j]))
		i = j
	}
	return spans, rest.String()
}

// valueSplit cuts a pasted message at the places that usually hold values of
// its own: numbers, colons, brackets, equals signs.
func valueSplit(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsDigit(r) || strings.ContainsRune(":;=()[]{}<>|", r)
	})
}

func cutAtSpace(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > n/2 {
		return s[:i]
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// literalTerms are the postings terms a phrase's containing chunk must have:
// the same split the indexer applies (index.SearchText), with the postings'
// own filters (no single characters, no bare numbers).
func literalTerms(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range strings.Fields(index.SearchText(s)) {
		if len(t) < 2 || len(t) > 64 || allDigits(t) || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// literalSQL checks one phrase against its candidates ($2: the chunks holding
// all of its words, literalCandidates): a candidate is a hit when its content
// holds the phrase ($4 as typed, or $3 an ILIKE pattern of it), scored 1 when
// the case matches too and 0.9 otherwise. Among hits, library code and then the
// smallest chunk (the definition itself rather than its enclosing class) rank
// first. A field of a candidate class (or of a part of one) is checked too: a
// class attribute holding a config dict (flask's default_config) is the answer
// its class's text was a candidate for (candidatesAndFields; fields have no
// postings of their own, docs/ARCHITECTURE.md §3).
const literalSQL = `
	SELECT s.id, CASE WHEN strpos(s.content, $4) > 0 THEN 1.0 ELSE 0.9 END AS score, coalesce(s.parent_id, 0)
	FROM symbols s
	WHERE s.repository_id = $1 AND s.kind <> 'part'
	  AND s.id IN (` + candidatesAndFields + `)
	  AND CASE WHEN strpos(s.content, $4) > 0 THEN true ELSE s.content ILIKE $3 END
	ORDER BY score DESC, s.is_test, length(s.content), s.path, s.start_line
	LIMIT $5`

// literalChannel ranks the chunks containing the query's phrases. A chunk
// scores its best phrase (1 when the case matches too, 0.9 otherwise, times the
// phrase's strength) plus literalExtra for each other phrase it holds. A class
// is left out when one of its methods holds the phrase: the method is the answer.
func (s *Searcher) literalChannel(ctx context.Context, p plan) ([]hit, error) {
	var checks []literalCheck
	for _, l := range p.literals {
		terms := literalTerms(l.text)
		if len(terms) == 0 {
			continue
		}
		checks = append(checks, literalCheck{lit: l, terms: terms[:min(len(terms), literalMaxTerms)]})
	}
	if len(checks) == 0 {
		return nil, nil
	}
	limit := literalCandidates
	if p.long {
		limit = literalLongCandidates // an issue's spans are weaker evidence
	}
	if !p.filter.Empty() {
		limit *= 4 // the filter leaves some candidates out after they are cut
	}
	cands, err := s.literalCandidates(ctx, checks, limit)
	if err != nil {
		return nil, err
	}
	batch := &pgx.Batch{}
	var asked []literalCheck
	for i, c := range checks {
		if len(cands[i]) == 0 {
			continue
		}
		asked = append(asked, c)
		q, args := filtered(literalSQL, p.filter, "s", s.repoID, cands[i], "%"+likeEscape(c.lit.text)+"%", c.lit.text, channelDepth)
		batch.Queue(q, args...)
	}
	if len(asked) == 0 {
		return nil, nil
	}
	return s.readLiteralHits(ctx, batch, asked)
}

// readLiteralHits runs the phrase checks and scores their hits.
func (s *Searcher) readLiteralHits(ctx context.Context, batch *pgx.Batch, asked []literalCheck) ([]hit, error) {
	br := s.db.Pool.SendBatch(ctx, batch)
	defer br.Close()
	scores := map[int64]float64{}
	parents := map[int64]bool{}
	var order []int64
	for _, c := range asked {
		rows, err := br.Query()
		if err != nil {
			return nil, fmt.Errorf("literal channel: %w", err)
		}
		var id, parent int64
		var score float64
		_, err = pgx.ForEachRow(rows, []any{&id, &score, &parent}, func() error {
			sc := score * literalStrength(c.lit)
			if old, ok := scores[id]; ok {
				scores[id] = max(old, sc) + literalExtra
			} else {
				order = append(order, id)
				scores[id] = sc
			}
			parents[parent] = true
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("literal channel: %w", err)
		}
	}
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("literal channel: %w", err)
	}
	hits := make([]hit, 0, len(order))
	for _, id := range order {
		if !parents[id] { // a class holding the phrase only through a method that holds it too
			hits = append(hits, hit{id: id, score: scores[id]})
		}
	}
	// Stable: within a score, the order SQL gave (library code, smaller chunks).
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	return hits[:min(len(hits), channelDepth)], nil
}

// literalExtra is what each further phrase of the query found in the same
// chunk adds to its best phrase's score.
const literalExtra = 0.05

// literalStrength is how much finding a phrase says: a quoted phrase, one of
// three words or more, or an identifier-like key counts fully; one or two plain
// words count less, as they could be anywhere.
func literalStrength(l literal) float64 {
	if l.quoted || len(strings.Fields(l.text)) >= 3 || strings.ContainsAny(l.text, "_.-/") || anyCodeShaped([]string{l.text}) {
		return 1
	}
	return 0.7
}

// literalCheck is one phrase and the postings terms it needs.
type literalCheck struct {
	lit   literal
	terms []string
}
