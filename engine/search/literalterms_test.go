package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/postings"
)

// TestLiteralCandidatesFindEveryHolder checks the literal channel's word
// intersection where it leaves lists unread: in a repository large enough
// for common words (8,000 chunks of random words), each phrase's hits must be
// exactly the chunks whose content holds it, whether its rarest word alone
// narrows the candidates, its next rarer ones are read too, or a common word
// has to be read in a second round trip.
func TestLiteralCandidatesFindEveryHolder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 8k chunks")
	}
	db := pgtest.Open(t)
	ctx := context.Background()
	repoID := seedLiteralChunks(t, db, 8000)
	s := New(db, repoID, fixedEmbedder{"literal-test", 4})
	for _, phrase := range []string{
		"zanzibar quixotic", // two rare words, both read
		"refund zanzibar",   // a common word left unread
		"quixotic",          // the rarest alone
		"zanzibar nowhere",  // a word in no chunk: no candidates
		"marmalade",         // in 20 chunks: below literalNarrow
		"invoice tax",       // both common: a second round trip, then the cap
	} {
		t.Run(phrase, func(t *testing.T) {
			want := holders(t, db, repoID, phrase)
			hits, err := s.literalChannel(ctx, plan{literals: []literal{{text: phrase}}})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]int64, 0, len(hits))
			for _, h := range hits {
				got = append(got, h.id)
			}
			slices.Sort(got)
			if len(want) > literalCandidates {
				// Capped: whatever is returned must hold the phrase.
				for _, id := range got {
					if _, ok := slices.BinarySearch(want, id); !ok {
						t.Fatalf("chunk %d returned without the phrase", id)
					}
				}
				if len(got) == 0 {
					t.Fatalf("%d chunks hold %q, none returned", len(want), phrase)
				}
				return
			}
			want = want[:min(len(want), channelDepth)]
			if !slices.Equal(got, want) {
				t.Fatalf("hits %v, want the %d holders %v", got, len(want), want)
			}
		})
	}
}

// holders are the ids of the chunks whose content holds phrase, ascending,
// as the channel's ORDER BY puts equal-length, same-path chunks (by start line =
// id here) when it returns them all.
func holders(t *testing.T, db *pg.DB, repoID int64, phrase string) []int64 {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT id FROM symbols
		WHERE repository_id = $1 AND strpos(content, $2) > 0 ORDER BY id`, repoID, phrase)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// seedLiteralChunks writes n chunks of 30 random common words, each in a
// file of its own, with their real postings; every 100th holds "zanzibar
// quixotic" or "refund zanzibar", every 400th "marmalade".
func seedLiteralChunks(t *testing.T, db *pg.DB, n int) int64 {
	t.Helper()
	ctx := context.Background()
	rec, err := db.EnsureRepository(ctx, "/synthetic-literal")
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("refund invoice tax cart discount session token retry backoff limiter request response")
	var files, syms, posts [][]any
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 1; i <= n; i++ {
		body := make([]string, 0, 34)
		for range 30 {
			body = append(body, words[rng.IntN(len(words))])
		}
		switch {
		case i%400 == 0:
			body = append(body, "marmalade")
		case i%200 == 0:
			body = append(body, "refund", "zanzibar")
		case i%100 == 0:
			body = append(body, "zanzibar", "quixotic")
		}
		content := strings.Join(body, " ")
		id := int64(i)
		files = append(files, []any{rec.ID, id, db.Tenant, fmt.Sprintf("f%05d.go", i), "x", "indexed"})
		syms = append(syms, []any{rec.ID, id, db.Tenant, id, fmt.Sprintf("f%05d.go", i), "f", "f", "function",
			1, 1, 0, len(content), content, "h"})
		tf := map[string]uint32{}
		for _, w := range body {
			tf[w]++
		}
		for term, f := range tf {
			posts = append(posts, []any{rec.ID, id, db.Tenant, term, 1,
				postings.Encode(nil, []postings.Posting{{Symbol: id, TF: f, DL: uint32(len(body))}})})
		}
	}
	conn, err := pg.ConnectOwner(ctx, db.URL) // bulk seeding as the owner: COPY is refused under RLS
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, c := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"files", []string{"repository_id", "id", "tenant_id", "path", "revision", "status"}, files},
		{"symbols", []string{"repository_id", "id", "tenant_id", "file_id", "path", "name", "qualified_name", "kind",
			"start_line", "end_line", "start_byte", "end_byte", "content", "content_hash"}, syms},
		{"postings", []string{"repository_id", "group_id", "tenant_id", "term", "n", "data"}, posts},
	} {
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
			t.Fatalf("seed %s: %v", c.table, err)
		}
	}
	if _, err := conn.Exec(ctx, `ANALYZE files; ANALYZE symbols; ANALYZE postings`); err != nil {
		t.Fatal(err)
	}
	return rec.ID
}
