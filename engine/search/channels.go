package search

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// hit is one entry of a channel's ranked list.
type hit struct {
	id    int64
	score float64
}

// channelDepth is how many hits each channel contributes to fusion.
const channelDepth = 100

// symbolChannel matches names: exact qualified names and names first, then
// case-insensitive ones, aliases, then trigram near misses. Raw scores: 1.0 exact
// qualified, 0.95 exact name, 0.9 case-insensitive, 0.85 alias, else 0.8 x trigram
// similarity. For a question only exact (case-insensitive) names of its identifiers
// count, scored 0.5: a near-miss on an English word is noise.
func (s *Searcher) symbolChannel(ctx context.Context, p plan) ([]hit, error) {
	if len(p.identifiers) == 0 {
		return nil, nil
	}
	// One statement per identifier (at most a few), batched: each is planned with
	// its own constant, so the b-tree on lower(name), the GIN on aliases and the
	// trigram GIN all apply (a join against unnest() defeated them).
	ids := p.identifiers
	if len(ids) > 4 {
		ids = ids[:4]
	}
	var best bestHits
	collect := func(batch *pgx.Batch) error {
		br := s.db.Pool.SendBatch(ctx, batch)
		defer br.Close()
		for i := 0; i < batch.Len(); i++ {
			rows, err := br.Query()
			if err != nil {
				return err
			}
			hs, err := collectHits(rows)
			if err != nil {
				return err
			}
			best.add(hs)
		}
		return br.Close()
	}
	if err := collect(s.exactBatch(p, ids)); err != nil {
		return nil, fmt.Errorf("symbol channel: %w", err)
	}
	if p.kind == Identifier {
		keys, err := s.keyHits(ctx, p, ids)
		if err != nil {
			return nil, err
		}
		best.add(keys)
	}
	// Near misses (a typo, a half-remembered name) only when the exact lookup found
	// little: trigram matching of short names touches many rows.
	if p.kind == Identifier && len(best.order) < 3 {
		fuzzy := &pgx.Batch{}
		for _, raw := range ids {
			q, args := filtered(symbolFuzzySQL, p.filter, "s", s.repoID, strings.ToLower(raw[strings.LastIndex(raw, ".")+1:]), channelDepth)
			fuzzy.Queue(q, args...)
		}
		if err := collect(fuzzy); err != nil {
			return nil, fmt.Errorf("symbol channel: %w", err)
		}
	}
	hits := best.sorted()
	if len(hits) > channelDepth {
		hits = hits[:channelDepth]
	}
	if p.kind == Semantic {
		for i := range hits {
			hits[i].score *= 0.5
		}
	}
	return hits, nil
}

// exactBatch is the exact-name statement of each identifier, and of the
// camelCase spelling of a snake_case one (dedupe_items names dedupeItems too,
// but for case).
func (s *Searcher) exactBatch(p plan, ids []string) *pgx.Batch {
	exact := &pgx.Batch{}
	for _, raw := range ids {
		last := raw[strings.LastIndex(raw, ".")+1:]
		q, args := filtered(symbolExactSQL, p.filter, "s", s.repoID, strings.ToLower(last), strings.ToLower(raw), raw, last, channelDepth)
		exact.Queue(q, args...)
		if v := snakeToCamel(last); v != "" {
			q, args := filtered(symbolExactSQL, p.filter, "s", s.repoID, v, v, v, v, channelDepth)
			exact.Queue(q, args...)
		}
	}
	return exact
}

// bestHits keeps each symbol's best hit of several statements, in the order
// they were first found.
type bestHits struct {
	best  map[int64]hit
	order []int64
}

func (b *bestHits) add(hs []hit) {
	if b.best == nil {
		b.best = map[int64]hit{}
	}
	for _, h := range hs {
		if old, ok := b.best[h.id]; !ok || h.score > old.score {
			if !ok {
				b.order = append(b.order, h.id)
			}
			b.best[h.id] = h
		}
	}
}

// sorted returns the hits by score; within a score, the order the statements
// gave (library code and shorter paths first).
func (b *bestHits) sorted() []hit {
	hits := make([]hit, 0, len(b.order))
	for _, id := range b.order {
		hits = append(hits, b.best[id])
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	return hits
}

// denseSQL is the nearest-neighbour query for a model (its id, pg.DB.ModelID):
// the same cast and model filter as the model's partial HNSW indexes ($2 the
// query vector, $3 the limit). A repository with an index of its own (own)
// walks it, and may hold rows the shared index leaves out; another walks the
// shared index, whose rows are those whose own_index IS NULL (migration 0024).
func denseSQL(model int16, dims int, own bool) string {
	expr := pg.SymbolVectorExpr("e.embedding", dims)
	shared := " AND e.own_index IS NULL"
	if own {
		shared = ""
	}
	return fmt.Sprintf(`
		SELECT e.symbol_id, 1 - (%[1]s <=> $2) AS score
		FROM symbol_embeddings e
		WHERE e.model_id = %[2]d AND e.repository_id = $1%[3]s
		ORDER BY %[1]s <=> $2
		LIMIT $3`, expr, model, shared)
}

// denseExactSQL is the exact nearest-neighbour query: the "+ 0" keeps the
// planner off the HNSW index, so it reads the repository's own vectors by its
// b-tree and sorts them.
func denseExactSQL(model int16, dims int) string {
	expr := pg.SymbolVectorExpr("e.embedding", dims)
	return fmt.Sprintf(`
		SELECT e.symbol_id, 1 - (%[1]s <=> $2) AS score
		FROM symbol_embeddings e
		WHERE e.model_id = %[2]d AND e.repository_id = $1
		ORDER BY (%[1]s <=> $2) + 0
		LIMIT $3`, expr, model)
}

// symbolExactSQL finds exact and case-insensitive names, qualified names and
// aliases: $2 lower-case name, $3 lower-case qualified form, $4 as typed, $5 the
// last segment as typed.
//
// A Type.member the type inherits (Flask.add_url_rule, App's) scores 0.97 for
// the nearest base's definition, 0.96 further up: below the type's own member,
// above every other type's member of that name (bases: the resolved inherits
// edges of the types named like Type, as symbols.Inherited walks them).
const symbolExactSQL = `
	WITH RECURSIVE bases(id, depth) AS (
		SELECT t.id, 0 FROM symbols t
		WHERE $4 LIKE '%.%' AND t.repository_id = $1 AND t.kind IN ('class','struct','interface','type','enum')
		  AND lower(t.name) = regexp_replace($3, '^(.*\.)?([^.]+)\.[^.]+$', '\2')
		UNION
		SELECT e.target_id, b.depth + 1 FROM bases b
		JOIN edges e ON e.repository_id = $1 AND e.source_id = b.id AND e.kind = 'inherits' AND e.target_id IS NOT NULL
		WHERE b.depth < 6)
	SELECT s.id, CASE
		WHEN s.qualified_name = $4 OR ($4 LIKE '%.%' AND lower(s.qualified_name) = $3) THEN 1.0
		WHEN $4 LIKE '%.%' AND lower(s.name) = $2 AND (lower(s.receiver) = split_part($3, '.', 1)
		     OR lower(s.qualified_name) LIKE '%.' || $3) THEN 0.98
		WHEN s.name = $5 AND s.parent_id IN (SELECT id FROM bases WHERE depth = 1) THEN 0.97
		WHEN s.name = $5 AND s.parent_id IN (SELECT id FROM bases WHERE depth > 1) THEN 0.96
		WHEN s.name = $4 THEN 0.95
		WHEN lower(s.name) = $2 THEN 0.9
		ELSE 0.85 END AS score
	FROM symbols s
	WHERE s.repository_id = $1 AND s.kind NOT IN ('module', 'part', 'block', 'field')
	  -- aliases <> '{}': the condition of the aliases' index (migration 0019)
	  AND (lower(s.name) = $2 OR (s.aliases <> '{}' AND s.aliases @> ARRAY[$5::text])
	       OR (s.aliases <> '{}' AND s.aliases @> ARRAY[$4::text]))
	ORDER BY score DESC, s.is_test, length(s.path), s.id
	LIMIT $6`

// symbolFuzzySQL finds trigram near misses of a name ($2, lower-case).
const symbolFuzzySQL = `
	SELECT s.id, 0.8 * similarity(lower(s.name), $2) AS score
	FROM symbols s
	WHERE s.repository_id = $1 AND lower(s.name) % $2 AND lower(s.name) <> $2
	  AND s.kind NOT IN ('module', 'part', 'block', 'field')
	ORDER BY score DESC, s.is_test, length(s.path), s.id
	LIMIT $3`

// commonFraction: a query term found in more than this share of the repository's

// commonFraction: a query term found in more than this share of the repository's
// chunks is dropped from BM25's terms (unless every term is that common) and
// left out of the literal channel's word intersection. On 88k chunks a word in
// 45k rows costs ~100 ms of ranking and says nothing.
const commonFraction = 0.03

// denseChannel ranks by cosine similarity on the model's partial HNSW index. The
// model name is inlined as a literal so the planner can match the partial index
// predicate (a parameter would hide it from a generic plan).
func (s *Searcher) denseChannel(ctx context.Context, p plan, efSearch int) ([]hit, error) {
	vecs, err := s.emb.Embed(ctx, []string{p.text})
	if err != nil {
		return nil, fmt.Errorf("embed query with %s: %w", s.emb.Name(), err)
	}
	if len(vecs) != 1 || len(vecs[0]) != s.emb.Dims() {
		return nil, fmt.Errorf("embedder %s returned a vector of the wrong size", s.emb.Name())
	}
	wv, soft := softMatched(s.emb)
	// One channel's depth of candidates for the soft term rescoring too: a pool
	// twice as deep cost twice the rescoring and, with dense weighted as a
	// tie-breaker, found nothing more on the tuning half of the real-code set.
	depth := channelDepth
	// Other repositories' rows share the index: with iterative scans (where
	// pgvector has them; on an older one the setting is an error that aborts the
	// transaction) it keeps scanning until enough of this repository's rows are found.
	iterative, err := s.db.IterativeScan(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("dense channel: %w", err)
	}
	hits, texts, err := s.nearest(ctx, vecs[0], efSearch, iterative, depth, soft, p.filter)
	if err != nil {
		return nil, fmt.Errorf("dense channel: %w", err)
	}
	if soft {
		hits = softRerank(wv, p, hits, texts)
	}
	return hits[:min(len(hits), channelDepth)], nil
}

// nearest runs the HNSW query with its settings in one transaction sent as one
// pipelined batch: one round trip instead of five (begin, two settings, the
// query, commit), which under load was most of the channel's time. withText also
// returns each hit's name, signature and doc words for soft term matching.
//
// A filtered search ranks the filter's vectors exactly: an approximate walk
// with a filter on another table would stop short of a page.
func (s *Searcher) nearest(ctx context.Context, vec []float32, efSearch int, iterative bool, depth int, withText bool,
	f Filter) ([]hit, map[int64]string, error) {
	model, err := s.db.ModelID(ctx, s.emb.Name())
	if errors.Is(err, pg.ErrUnknownModel) {
		return nil, nil, nil // nothing was ever embedded with it
	} else if err != nil {
		return nil, nil, err
	}
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(fmt.Sprintf("SET LOCAL hnsw.ef_search = %d", efSearch))
	if iterative {
		b.Queue("SET LOCAL hnsw.iterative_scan = relaxed_order")
	}
	var hits []hit
	texts := map[int64]string{}
	var query string
	if exact, err := s.denseExact(ctx); err != nil {
		return nil, nil, err
	} else if exact || !f.Empty() {
		query = denseExactSQL(model, s.emb.Dims())
	} else {
		// Asked each time: a run may build the index while a server searches.
		own, err := s.db.HasRepoVectorIndex(ctx, s.repoID, pg.Model{Name: s.emb.Name(), Dims: s.emb.Dims()})
		if err != nil {
			return nil, nil, err
		}
		query = denseSQL(model, s.emb.Dims(), own)
	}
	args := []any{s.repoID, pgvector.NewHalfVector(vec), depth}
	if !f.Empty() {
		query = strings.Replace(query, "FROM symbol_embeddings e",
			"FROM symbol_embeddings e JOIN symbols fs ON fs.repository_id = $1 AND fs.id = e.symbol_id", 1)
		query, args = filtered(query, f, "fs", args...)
	}
	if withText {
		query = `SELECT n.symbol_id, n.score, s.name, s.qualified_name, s.aliases, s.signature, s.doc
			FROM (` + query + `) n JOIN symbols s ON s.repository_id = $1 AND s.id = n.symbol_id
			ORDER BY n.score DESC, n.symbol_id`
	}
	b.Queue(query, args...).Query(func(rows pgx.Rows) error {
		var h hit
		var name, qualified, signature, doc string
		var aliases []string
		dest := []any{&h.id, &h.score}
		if withText {
			dest = append(dest, &name, &qualified, &aliases, &signature, &doc)
		}
		_, err := pgx.ForEachRow(rows, dest, func() error {
			hits = append(hits, h)
			if withText {
				texts[h.id] = index.WordText(name, qualified, aliases, signature, doc)
			}
			return nil
		})
		return err
	})
	b.Queue("COMMIT")
	if err := s.db.Pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, err
	}
	return hits, texts, nil
}

// edgeWeight is how much a link is trusted in the graph channel: 1 when exact,
// 0.7 when inferred (or resolved before confidences were recorded), 0.4 shared
// among an ambiguous edge's candidates. Unresolved edges have no target and are
// not walked.
const edgeWeight = `CASE e.confidence WHEN 'exact' THEN 1.0
	WHEN 'ambiguous' THEN 0.4 / greatest(coalesce(cardinality(e.candidates), 1), 1) ELSE 0.7 END`

// graphNeighbours is a LATERAL body listing the neighbours of from.id over edges
// of kinds, each with its edge's weight: targets (every candidate of an ambiguous
// edge), sources, and sources of ambiguous edges naming from.id as a candidate.
// Those are found by the candidates GIN alone ("+ 0" keeps the planner from
// AND-ing it with a bitmap of every edge of the repository: 39 ms a lookup at
// sqlalchemy's 321k edges, for a list that is empty or short; symbol ids are
// unique across repositories, and the filter still applies to the rows found).
// maxFanOut bounds how many candidates of an ambiguous edge the graph channel
// follows: past it each would carry a weight under 0.1 while multiplying the
// rows of the second hop (the first only keeps the edge's first candidate).
// On Citus (distributed) the key is compared plainly: Citus routes a
// statement to one shard only when each of its distributed tables is filtered
// by equality on repository_id, and refuses the walk's joins across shards.
const maxFanOut = "4"

func graphNeighbours(from, kinds string, distributed bool) string {
	repo := `e.repository_id + 0 = $1`
	if distributed {
		repo = `e.repository_id = $1`
	}
	return `SELECT c.id, ` + edgeWeight + ` AS cw
		FROM edges e CROSS JOIN LATERAL unnest(CASE WHEN cardinality(e.candidates) > ` + maxFanOut + `
		     THEN ARRAY[e.target_id] ELSE coalesce(e.candidates, ARRAY[e.target_id]) END) AS c(id)
		WHERE e.repository_id = $1 AND e.source_id = ` + from + `.id AND e.kind IN (` + kinds + `) AND e.target_id IS NOT NULL
		UNION ALL
		SELECT e.source_id, ` + edgeWeight + `
		FROM edges e WHERE e.repository_id = $1 AND e.target_id = ` + from + `.id AND e.kind IN (` + kinds + `)
		UNION ALL
		SELECT e.source_id, ` + edgeWeight + `
		FROM edges e WHERE ` + repo + ` AND e.candidates @> ARRAY[` + from + `.id]
		  AND cardinality(e.candidates) <= ` + maxFanOut + `
		  AND e.target_id IS DISTINCT FROM ` + from + `.id AND e.kind IN (` + kinds + `)`
}

// graphFrontier bounds how many first-hop neighbours the second hop walks from:
// the best ones. A much-called anchor (sqlalchemy's Select.where) has 1.3k
// callers, each walked again, for second-hop scores below the first hop's (2.3 s
// a query unbounded; 40 ms from 50); past the channel's depth they could not
// rank anyway, and the second hop only votes at half weight.
const graphFrontier = 20

// graphChannel scores the neighbours of the anchors over calls and type
// relations: the edge's weight for a direct neighbour, half the product of the two
// at two hops (from the best graphFrontier first-hop neighbours), times the
// anchor's weight (1 for the best anchor, decreasing). Anchors themselves are not
// returned.
//
// Unlike the other channels' statements it is prepared once per connection and
// left to PostgreSQL's plan cache, which after five executions keeps a generic
// plan: planning its six scans of the edges took 1.1 to 3 ms a query (5 under
// load), the generic plan 0.03, and it runs as fast, since the anchors come from
// an array either way and no partial index depends on a parameter.
func (s *Searcher) graphChannel(ctx context.Context, anchors []int64, f Filter) ([]hit, error) {
	if len(anchors) == 0 {
		return nil, nil
	}
	cond, fargs := f.sql("fs", 5)
	if cond != "" {
		cond = " AND EXISTS (SELECT 1 FROM symbols fs WHERE fs.repository_id = $1 AND fs.id = n.id" + cond + ")"
	}
	args := append([]any{pgx.QueryExecModeCacheStatement, s.repoID, anchors, channelDepth, graphFrontier}, fargs...)
	rows, err := s.db.Pool.Query(ctx, `
		WITH a AS (
			SELECT id, 1.0 / ord AS w FROM unnest($2::bigint[]) WITH ORDINALITY AS t(id, ord)
		), hop1 AS (
			SELECT n.id, max(a.w * n.cw) AS w
			FROM a CROSS JOIN LATERAL (`+graphNeighbours("a", `'calls', 'inherits', 'implements', 'references'`, s.db.Distributed)+`) n
			GROUP BY 1
		), frontier AS (
			SELECT id, w FROM hop1 ORDER BY w DESC, id LIMIT $4
		), hop2 AS (
			SELECT n.id, max(h.w * n.cw) * 0.5 AS w
			FROM frontier h CROSS JOIN LATERAL (`+graphNeighbours("h", `'calls', 'inherits', 'implements'`, s.db.Distributed)+`) n
			GROUP BY 1
		)
		SELECT id, max(w) AS score FROM (SELECT * FROM hop1 UNION ALL SELECT * FROM hop2) n
		WHERE id IS NOT NULL AND id <> ALL ($2)`+cond+`
		GROUP BY id ORDER BY score DESC, id LIMIT $3`, args...)
	if err != nil {
		return nil, fmt.Errorf("graph channel: %w", err)
	}
	hits, err := collectHits(rows)
	if err != nil {
		return nil, fmt.Errorf("graph channel: %w", err)
	}
	return hits, nil
}

func collectHits(rows pgx.Rows) ([]hit, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (hit, error) {
		var h hit
		err := r.Scan(&h.id, &h.score)
		return h, err
	})
}
