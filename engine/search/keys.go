package search

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Constants and configuration keys by name. A module constant is a symbol and
// its name is found like any other; a constant class attribute (a field
// assigned in the class body: default_config = {...}) and a key of a dict
// literal ("SEND_FILE_MAX_AGE_DEFAULT": None) are not names of symbols, so the
// symbol channel finds them in the text of the constants, variables and class
// attributes that the key's words' postings point to (the literal channel's
// candidates): a key or a class attribute of the identifier, scored keyScore:
// above a phrase found verbatim, below every definition of that name.

// candidatesAndFields are the literal candidates ($2) and the fields declared
// in those of them that are classes or parts of one (read by the path and line
// index: fields have no postings of their own, their class's text holds their
// lines).
const candidatesAndFields = `SELECT unnest($2::bigint[])
		UNION ALL
		SELECT f.id FROM symbols c
		JOIN symbols f ON f.repository_id = $1 AND f.path = c.path AND f.start_line BETWEEN c.start_line AND c.end_line
		 AND f.kind = 'field' AND f.parent_id = CASE WHEN c.kind = 'part' THEN c.parent_id ELSE c.id END
		WHERE c.repository_id = $1 AND c.id = ANY($2::bigint[]) AND c.kind IN ('class', 'struct', 'part', 'interface', 'enum', 'type')`

// keySQL finds, among the candidates $2 and the fields of candidate classes,
// the constants, variables and class attributes whose text holds the
// identifier as a quoted key or assigns it ($3, a regular expression; $4 the
// identifier as typed).
const keySQL = `
	SELECT s.id, ` + keyScoreText + ` AS score
	FROM symbols s
	WHERE s.repository_id = $1 AND s.kind IN ('const', 'constant', 'var', 'field')
	  AND s.id IN (` + candidatesAndFields + `)
	  AND strpos(s.content, $4) > 0 AND s.content ~ $3
	ORDER BY s.is_test, length(s.content), s.path, s.start_line
	LIMIT $5`

// keyScoreText is keyScore as SQL text.
const keyScoreText = "0.92"

// keyPattern matches identifier id as a quoted key or element ("ID": ...,
// 'ID', [`ID`]) or as a class attribute assigned at the start of its
// declaration (ID = ..., static ID = ..., ID: int = ...).
func keyPattern(id string) string {
	q := regexp.QuoteMeta(id)
	return `(["'` + "`" + `])` + q + `\1\s*[:=,)\]}]|^\s*((static|readonly|final|const|public|private|protected)\s+)*` + q + `\s*(:[^=\n]*)?=`
}

// keyIdentifier reports whether id can be a key or constant worth this lookup:
// a word of three characters or more, no dotted path.
func keyIdentifier(id string) bool {
	return len(id) >= 3 && !strings.ContainsAny(id, ". ")
}

// keyHits returns the constants and class attributes holding the identifiers
// ids as keys or assigning them, one round trip for their candidates and one
// for the check.
func (s *Searcher) keyHits(ctx context.Context, p plan, ids []string) ([]hit, error) {
	var checks []literalCheck
	var names []string
	for _, id := range ids {
		if !keyIdentifier(id) {
			continue
		}
		if terms := literalTerms(id); len(terms) > 0 {
			checks = append(checks, literalCheck{lit: literal{text: id}, terms: terms[:min(len(terms), literalMaxTerms)]})
			names = append(names, id)
		}
	}
	if len(checks) == 0 {
		return nil, nil
	}
	cands, err := s.literalCandidates(ctx, checks, literalCandidates)
	if err != nil {
		return nil, fmt.Errorf("symbol channel keys: %w", err)
	}
	batch := &pgx.Batch{}
	for i, id := range names {
		if len(cands[i]) == 0 {
			continue
		}
		q, args := filtered(keySQL, p.filter, "s", s.repoID, cands[i], keyPattern(id), id, channelDepth)
		batch.Queue(q, args...)
	}
	if batch.Len() == 0 {
		return nil, nil
	}
	br := s.db.Pool.SendBatch(ctx, batch)
	defer br.Close()
	var out []hit
	for i := 0; i < batch.Len(); i++ {
		rows, err := br.Query()
		if err != nil {
			return nil, fmt.Errorf("symbol channel keys: %w", err)
		}
		hs, err := collectHits(rows)
		if err != nil {
			return nil, fmt.Errorf("symbol channel keys: %w", err)
		}
		out = append(out, hs...)
	}
	return out, br.Close()
}
