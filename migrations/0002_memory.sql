-- 0002_memory: what agent memory (engine/memory) needs beyond 0001.

-- Lexical search over memories: the fallback when the embedder is down and the
-- lexical channel of `spelunk memory search`. Memories are English prose, so the
-- english configuration (stemming, stop words) suits them better than 'simple'.
ALTER TABLE memories ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('english', content)) STORED;
CREATE INDEX memories_tsv_idx ON memories USING gin (tsv);

-- Briefing without a query (most recent live memories) and the EmbedPending queue.
CREATE INDEX memories_live_recent_idx ON memories (repository_id, created_at DESC)
    WHERE status IN ('ACTIVE', 'DISPUTED', 'PENDING_EMBEDDING');
CREATE INDEX memories_pending_idx ON memories (repository_id, created_at)
    WHERE status = 'PENDING_EMBEDDING';

-- Lineage: children of a memory (parent_ids @> ARRAY[id]).
CREATE INDEX memories_parents_idx ON memories USING gin (parent_ids);

-- Undo of a conflict resolution reads the events of that conflict.
CREATE INDEX memory_events_conflict_idx ON memory_events (repository_id, conflict_id, id)
    WHERE conflict_id IS NOT NULL;

-- Last write wins by timestamp; two writes with the same timestamp are ordered by
-- their history row, so every writer agrees on the winner.
ALTER TABLE nuggets ADD COLUMN history_id bigint NOT NULL DEFAULT 0;

-- Exemptions are removed by conflict when a "keep both" is undone.
CREATE INDEX conflict_exemptions_conflict_idx ON conflict_exemptions (repository_id, conflict_id);
