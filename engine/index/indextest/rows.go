package indextest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// Rows renders every code row the index holds for repository repoID, one line
// per row, sorted, in terms that do not depend on ids, timestamps or which
// repository key or database holds them: two indexes of the same tree, one
// incremental and one clean, must render the same lines. Rows point at each
// other by (path, kind, qualified name, start line).
//
// Two things are left out by design: mtime_ns (when a file was read from
// disk says nothing about its content) and which commit labels an unchanged
// file (an incremental run keeps the commit a file was indexed at, see
// engine/index relabels): only whether a row is "working-tree" is compared.
func Rows(t testing.TB, db *pg.DB, repoID int64) []string {
	t.Helper()
	var out []string
	for _, q := range rowQueries {
		lines, err := queryLines(context.Background(), db, q, repoID)
		if err != nil {
			t.Fatalf("index rows: %v", err)
		}
		out = append(out, lines...)
	}
	out = append(out, PostingLines(t, db, repoID)...)
	slices.Sort(out)
	return out
}

// symKey names a symbol of alias s without its id.
func symKey(s string) string {
	return `coalesce(` + s + `.path || ':' || ` + s + `.kind || ':' || ` + s + `.qualified_name || ':' || ` + s + `.start_line, '-')`
}

// revClass is what of a revision label is compared (see Rows).
func revClass(col string) string {
	return `CASE ` + col + ` WHEN 'working-tree' THEN 'working-tree' ELSE 'commit' END`
}

var rowQueries = []string{
	`SELECT 'repo', coalesce(last_commit, ''), working_tree, coalesce(embedding_model, ''), indexing_started IS NULL
	 FROM repositories WHERE id = $1`,
	`SELECT 'file', path, dir, coalesce(blob_sha, ''), ` + revClass("revision") + `, coalesce(language, ''), size_bytes,
	        coalesce(content_hash, ''), status, coalesce(skip_reason, ''), notes, secrets_redacted, is_test
	 FROM files WHERE repository_id = $1`,
	`SELECT 'sym', ` + symKey("s") + `, s.name, s.aliases, ` + symKey("p") + `, coalesce(s.receiver, ''), s.signature,
	        md5(s.doc), s.end_line, s.start_byte, s.end_byte, s.content_hash, md5(coalesce(s.skeleton, '-')),
	        coalesce(s.language, ''), s.exported, s.is_test, ` + revClass("f.revision") + `, s.embedding_state,
	        s.doc_length,
	        coalesce(s.result_type, ''), coalesce(s.embeds, '{}'), f.path
	 FROM symbols s JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
	 LEFT JOIN symbols p ON p.repository_id = s.repository_id AND p.id = s.parent_id
	 WHERE s.repository_id = $1`,
	// Every edge with the decision taken: target, confidence, candidates in order.
	`SELECT 'edge', f.path, ` + symKey("src") + `, e.kind, e.target_name, e.target_qualifier, e.line,
	        coalesce(e.target_path, ''), coalesce(tf.path, '-'), ` + symKey("t") + `, e.confidence, e.target_type,
	        coalesce((SELECT string_agg(` + symKey("c") + `, ',' ORDER BY u.ord)
	                  FROM unnest(e.candidates) WITH ORDINALITY u(id, ord)
	                  LEFT JOIN symbols c ON c.repository_id = e.repository_id AND c.id = u.id), ''),
	        f.path
	 FROM edges e
	 JOIN files f ON f.repository_id = e.repository_id AND f.id = e.file_id
	 LEFT JOIN symbols src ON src.repository_id = e.repository_id AND src.id = e.source_id
	 LEFT JOIN symbols t ON t.repository_id = e.repository_id AND t.id = e.target_id
	 LEFT JOIN files tf ON tf.repository_id = e.repository_id AND tf.id = e.target_file_id
	 WHERE e.repository_id = $1`,
	// Postings: PostingLines, which decodes them.
	// A vector whose symbol is gone (vectors have no foreign key) renders with "-".
	// The model by name: two databases may number their models differently.
	`SELECT 'vec', ` + symKey("s") + `, m.name, v.content_hash, md5(v.embedding::text)
	 FROM symbol_embeddings v LEFT JOIN symbols s ON s.repository_id = v.repository_id AND s.id = v.symbol_id
	 LEFT JOIN embedding_models m ON m.id = v.model_id
	 WHERE v.repository_id = $1`,
}

func queryLines(ctx context.Context, db *pg.DB, q string, repoID int64) ([]string, error) {
	rows, err := db.Pool.Query(ctx, q, repoID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, " | "))
	}
	return out, rows.Err()
}

// DiffRows lists the lines only got has ("+") and only want has ("-"),
// counted as multisets, at most limit of them; "" when they are equal.
func DiffRows(got, want []string, limit int) string {
	n := map[string]int{}
	for _, l := range got {
		n[l]++
	}
	for _, l := range want {
		n[l]--
	}
	var out []string
	for l, c := range n {
		for ; c > 0; c-- {
			out = append(out, "+ "+l)
		}
		for ; c < 0; c++ {
			out = append(out, "- "+l)
		}
	}
	if len(out) == 0 {
		return ""
	}
	// Files and symbols first: a difference there explains the edges after.
	rank := func(l string) int {
		kind, _, _ := strings.Cut(l[2:], " ")
		return slices.Index([]string{"repo", "file", "sym", "edge", "post", "vec"}, kind)
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a[2:], b[2:])
	})
	total := len(out)
	if len(out) > limit {
		out = append(out[:limit], "...")
	}
	return fmt.Sprintf("%d rows differ (+ only in the index under test, - only in the clean one):\n%s", total, strings.Join(out, "\n"))
}
