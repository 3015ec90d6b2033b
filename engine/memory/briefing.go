package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/pgvector/pgvector-go"
)

// BriefingOptions shape a briefing.
type BriefingOptions struct {
	// Query ranks memories by similarity to it; empty means the most recent.
	Query string
	// Limit is the number of memories (default 10, at most 100).
	Limit int
}

// maxBriefingNuggets bounds the nuggets a briefing carries.
const maxBriefingNuggets = 100

// BriefMemory is a memory as the briefing ranks it.
type BriefMemory struct {
	ID        string    `json:"id"`
	Kind      Kind      `json:"kind"`
	Author    string    `json:"author"`
	Content   string    `json:"content"`
	Status    Status    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	// Similarity to the query (null without a query).
	Similarity *float64 `json:"similarity"`
	// Decay is the recency factor 0.5^(age/half-life).
	Decay float64 `json:"decay"`
	// Score is similarity × decay (decay alone without a query).
	Score float64 `json:"score"`
	// Anchors are the definitions and files the memory is about, with whether
	// each is still current.
	Anchors []Anchor `json:"anchors,omitempty"`
}

// Briefing is what an agent reads before working: the memories that matter, the
// nuggets, the latest state and how many conflicts wait for a person.
type Briefing struct {
	Query    string        `json:"query,omitempty"`
	Memories []BriefMemory `json:"memories"`
	Nuggets  []Nugget      `json:"nuggets"`
	State    *State        `json:"state"`
	// OpenConflicts counts the conflicts waiting for a resolution.
	OpenConflicts int `json:"open_conflicts"`
	// Ranking is "similarity" or "recent" (no query, or the embedder unavailable).
	Ranking string `json:"ranking"`
}

// briefingRest is the part of the briefing statement after the memories CTE
// ("top"): the JSON document with the memories, nuggets, latest state and open
// conflict count. $1 project, $3 limit, $4 half-life in seconds.
var briefingRest = `
SELECT json_build_object(
	'memories', coalesce((SELECT json_agg(json_build_object(
			'id', t.id, 'kind', t.kind, 'author', t.author, 'content', t.content, 'status', t.status,
			'created_at', t.created_at, 'similarity', t.similarity, 'decay', t.decay, 'score', t.score,
			'anchors', (SELECT json_agg(json_build_object('path', a.path, 'name', a.name, 'kind', a.kind,
					'state', a.state, 'old_path', coalesce(a.old_path, '')) ORDER BY a.path, a.name)
				FROM memory_anchors a WHERE a.repository_id = $1 AND a.memory_id = t.id))
		ORDER BY t.score DESC, t.created_at DESC) FROM top t), '[]'::json),
	'nuggets', coalesce((SELECT json_agg(json_build_object(
			'key', n.key, 'value', n.value, 'author', n.author, 'updated_at', n.updated_at) ORDER BY n.key)
		FROM (SELECT key, value, author, updated_at FROM nuggets
			WHERE repository_id = $1 AND NOT deleted ORDER BY key LIMIT ` + strconv.Itoa(maxBriefingNuggets) + `) n), '[]'::json),
	'state', (SELECT json_build_object('id', s.id, 'summary', s.summary, 'blockers', s.blockers,
			'priorities', s.priorities, 'author', s.author, 'compiled_at', s.compiled_at)
		FROM state_compilations s WHERE s.repository_id = $1 ORDER BY s.compiled_at DESC, s.id DESC LIMIT 1),
	'open_conflicts', (SELECT count(*) FROM conflicts c WHERE c.repository_id = $1 AND c.status = 'open')
)`

// decayExpr is the recency factor of memory m; $4 is the half-life in seconds.
const decayExpr = `power(0.5::float8, extract(epoch FROM (now() - m.created_at))::float8 / $4::float8)`

// briefingRecentSQL ranks the most recent live memories (no query).
var briefingRecentSQL = `
WITH top AS (
	SELECT m.id, m.kind, m.author, m.content, m.status, m.created_at,
		NULL::float8 AS similarity, ` + decayExpr + ` AS decay, ` + decayExpr + ` AS score
	FROM memories m
	WHERE m.repository_id = $1 AND m.status IN ` + liveStatuses + ` AND $2::text IS NULL
	ORDER BY m.created_at DESC
	LIMIT $3
)` + briefingRest

// briefingSimilarSQL is the two-stage ranking: the HNSW index gives the pool of the
// candidatePool nearest memories (poolSQL), then recency decay re-ranks the pool
// only (never the whole table).
func briefingSimilarSQL(model string, dims int, iterative bool) string {
	return `
WITH ` + poolSQL(model, dims, iterative) + `,
scored AS (
	SELECT m.id, m.kind, m.author, m.content, m.status, m.created_at, p.similarity, ` + decayExpr + ` AS decay
	FROM pool p JOIN memories m ON m.repository_id = $1 AND m.id = p.memory_id
	WHERE m.status IN ` + vectorStatuses + `
), top AS (
	SELECT *, similarity * decay AS score FROM scored ORDER BY similarity * decay DESC, created_at DESC LIMIT $3
)` + briefingRest
}

// Briefing returns the project's briefing in one SQL round trip (after embedding
// the query, which happens in process). With a query, memories are ranked in two
// stages: the HNSW index gives the candidatePool most similar ACTIVE or DISPUTED
// memories, then similarity × recency decay orders that pool. Without a query, or
// when the embedder is unavailable, they are the most recent live memories
// (PENDING_EMBEDDING included). DISPUTED memories are briefed with their status so
// that an agent knows they are contested.
func (s *Store) Briefing(ctx context.Context, opts BriefingOptions) (Briefing, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 100)
	halfLife := s.halfLife.Seconds()
	b := Briefing{Query: opts.Query, Ranking: "recent"}
	sql, arg := briefingRecentSQL, any(nil)
	if opts.Query != "" {
		if err := checkText("query", opts.Query, MaxContentBytes); err != nil {
			return Briefing{}, fmt.Errorf("briefing: %w", err)
		}
		vec, model, err := s.embedOne(ctx, opts.Query)
		if err != nil {
			return Briefing{}, fmt.Errorf("briefing: %w", err)
		}
		if vec != nil {
			iterative, err := s.iterativeScan(ctx, s.db.Pool)
			if err != nil {
				return Briefing{}, fmt.Errorf("briefing: %w", err)
			}
			sql, arg = briefingSimilarSQL(model, len(vec), iterative), pgvector.NewVector(vec)
			b.Ranking = "similarity"
		}
	}
	var raw []byte
	if err := s.db.Pool.QueryRow(ctx, sql, s.project, arg, limit, halfLife).Scan(&raw); err != nil {
		return Briefing{}, fmt.Errorf("briefing: %w", err)
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return Briefing{}, fmt.Errorf("briefing: decode: %w", err)
	}
	return b, nil
}
