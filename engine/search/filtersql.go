package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// pathPattern is an ILIKE pattern for a path: filter's value.
func pathPattern(v string) string {
	if !strings.ContainsAny(v, "*?") {
		return "%" + likeEscape(v) + "%"
	}
	var b strings.Builder
	for _, r := range v {
		switch r {
		case '*':
			b.WriteByte('%')
		case '?':
			b.WriteByte('_')
		case '%', '_', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sql is f as a condition on the row alias (a symbols or files row: both have
// path, language and is_test; kind only symbols), with its parameters numbered
// from next: " AND ..." or "" for an empty filter.
func (f Filter) sql(alias string, next int) (string, []any) {
	var conds []string
	var args []any
	param := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", next+len(args)-1)
	}
	patterns := func(vals []string) []string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = pathPattern(v)
		}
		return out
	}
	if len(f.Paths) > 0 {
		conds = append(conds, alias+".path ILIKE ANY ("+param(patterns(f.Paths))+"::text[])")
	}
	if len(f.NotPaths) > 0 {
		conds = append(conds, "NOT ("+alias+".path ILIKE ANY ("+param(patterns(f.NotPaths))+"::text[]))")
	}
	if len(f.Langs) > 0 {
		conds = append(conds, alias+".language = ANY ("+param(f.Langs)+"::text[])")
	}
	if len(f.NotLangs) > 0 {
		conds = append(conds, "coalesce("+alias+".language, '') <> ALL ("+param(f.NotLangs)+"::text[])")
	}
	if len(f.Kinds) > 0 {
		conds = append(conds, alias+".kind = ANY ("+param(f.Kinds)+"::text[])")
	}
	switch f.Tests {
	case "no":
		conds = append(conds, "NOT "+alias+".is_test")
	case "only":
		conds = append(conds, alias+".is_test")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(conds, " AND "), args
}

// filtered inserts f's condition on alias into query just before its last ORDER
// BY, parameters numbered from next, and returns the query with args followed
// by the filter's parameters.
func filtered(query string, f Filter, alias string, args ...any) (string, []any) {
	cond, fargs := f.sql(alias, len(args)+1)
	if cond == "" {
		return query, args
	}
	i := strings.LastIndex(query, "ORDER BY")
	return query[:i] + strings.TrimPrefix(cond, " ") + "\n\t" + query[i:], append(args, fargs...)
}

// keepFiltered drops the hits f leaves out, for the lists that are not ranked
// in SQL with the filter (BM25's, whose rows hold several files' postings, and
// the mentions of a traceback).
func (s *Searcher) keepFiltered(ctx context.Context, f Filter, hits []hit) ([]hit, error) {
	if f.Empty() || len(hits) == 0 {
		return hits, nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	query, args := filtered("SELECT s.id FROM symbols s WHERE s.repository_id = $1 AND s.id = ANY($2::bigint[]) ORDER BY s.id",
		f, "s", s.repoID, ids)
	rows, err := s.db.Pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("filter: %w", err)
	}
	keep := map[int64]bool{}
	var id int64
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { keep[id] = true; return nil }); err != nil {
		return nil, fmt.Errorf("filter: %w", err)
	}
	out := hits[:0]
	for _, h := range hits {
		if keep[h.id] {
			out = append(out, h)
		}
	}
	return out, nil
}
