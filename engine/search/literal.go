package search

import (
	"context"
	"fmt"
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
// It needs no index of its own: the postings of the phrase's rarest words (the
// same words the lexical channel indexes) give a small candidate set, and the
// phrase itself is then checked against each candidate's content.

const (
	// maxLiterals bounds how many phrases one query checks.
	maxLiterals = 4
	// literalMinLen is the shortest phrase worth checking (shorter ones are words,
	// which the lexical and symbol channels handle).
	literalMinLen = 4
	// literalMaxLen: longer phrases are cut to their first words; a pasted line
	// rarely survives verbatim beyond that anyway.
	literalMaxLen = 160
	// literalCandidates caps the rows whose content is checked for one phrase:
	// checking costs ~0.1 ms a row (the content is read and compared), so a
	// phrase whose rarest words are all common is not worth checking.
	literalCandidates = 150
	// literalCommon: a phrase whose rarest word is in this many chunks is made
	// of words too common to intersect cheaply (unless it is quoted). The
	// candidates are the chunks holding all three rarest words, which is small
	// even when each word is common ("next() called multiple times").
	literalCommon = 5000
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

// literalSQL checks one phrase: candidates are the chunks holding all of the
// given rare terms ($2, $3 = how many); a chunk is a hit when its content holds
// the phrase ($5 as typed, or $4 an ILIKE pattern of it), scored 1 when the case
// matches too and 0.9 otherwise. Among hits, library code and then the smallest chunk (the
// definition itself rather than its enclosing class) rank first.
const literalSQL = `
	WITH c AS (
		SELECT symbol_id FROM postings
		WHERE repository_id = $1 AND term = ANY ($2)
		GROUP BY symbol_id HAVING count(*) = $3
		LIMIT $6)
	SELECT s.id, CASE WHEN strpos(s.content, $5) > 0 THEN 1.0 ELSE 0.9 END AS score, coalesce(s.parent_id, 0)
	FROM c JOIN symbols s ON s.repository_id = $1 AND s.id = c.symbol_id
	WHERE CASE WHEN strpos(s.content, $5) > 0 THEN true ELSE s.content ILIKE $4 END
	ORDER BY score DESC, s.is_test, length(s.content), s.path, s.start_line
	LIMIT $7`

// literalChannel ranks the chunks containing the query's phrases. A chunk
// scores its best phrase (1 when the case matches too, 0.9 otherwise, times the
// phrase's strength) plus literalExtra for each other phrase it holds. A class
// is left out when one of its methods holds the phrase: the method is the answer.
func (s *Searcher) literalChannel(ctx context.Context, p plan) ([]hit, error) {
	if len(p.literals) == 0 {
		return nil, nil
	}
	var checks []literalCheck
	all := map[string]bool{}
	for _, l := range p.literals {
		c := literalCheck{lit: l, terms: literalTerms(l.text)}
		checks = append(checks, c)
		for _, t := range c.terms {
			all[t] = true
		}
	}
	terms := make([]string, 0, len(all))
	for t := range all {
		terms = append(terms, t)
	}
	common := literalCommon
	if p.long {
		common = literalCandidates // an issue's spans are weaker evidence: only the cheap ones
	}
	df, err := s.documentFrequencies(ctx, terms, common)
	if err != nil {
		return nil, fmt.Errorf("literal channel: %w", err)
	}
	batch := &pgx.Batch{}
	var asked []literalCheck
	for _, c := range checks {
		rare := rarest(c.terms, df, 3)
		if rare == nil {
			continue // a word the repository never uses: the phrase is not here
		}
		if df[rare[0]] >= common && !c.lit.quoted {
			continue // only very common words: too costly to intersect, and it says little
		}
		asked = append(asked, c)
		batch.Queue(literalSQL, s.repoID, rare, len(rare), "%"+likeEscape(c.lit.text)+"%", c.lit.text, literalCandidates, channelDepth)
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

// rarest returns up to n of terms with the smallest document frequency, nil
// when one of them occurs nowhere (no chunk can contain the phrase).
func rarest(terms []string, df map[string]int, n int) []string {
	if len(terms) == 0 {
		return nil
	}
	sorted := append([]string(nil), terms...)
	sort.SliceStable(sorted, func(i, j int) bool { return df[sorted[i]] < df[sorted[j]] })
	if df[sorted[0]] == 0 {
		return nil
	}
	return sorted[:min(n, len(sorted))]
}

// documentFrequencies counts each term's postings, each count stopping at
// limit (a common term is as good as useless, however common). One statement
// for all terms.
func (s *Searcher) documentFrequencies(ctx context.Context, terms []string, limit int) (map[string]int, error) {
	df := make(map[string]int, len(terms))
	if len(terms) == 0 {
		return df, nil
	}
	rows, err := s.db.Pool.Query(ctx, `
		SELECT t.term, (SELECT count(*) FROM (SELECT 1 FROM postings p
			WHERE p.repository_id = $1 AND p.term = t.term LIMIT $3) x)
		FROM unnest($2::text[]) AS t(term)`, s.repoID, terms, limit)
	if err != nil {
		return nil, fmt.Errorf("term statistics: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, fmt.Errorf("term statistics: %w", err)
		}
		df[t] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("term statistics: %w", err)
	}
	return df, nil
}
