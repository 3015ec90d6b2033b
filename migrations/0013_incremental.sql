-- 0013_incremental: a one-file change re-indexed in O(change) (issue 13 item 3).
--
-- An incremental run looks up the edges typed by a definition it changed (the
-- type an edge's target_type names: engine/index typeBase). Migration 0006
-- indexed that expression, but under row-level security the planner cannot use
-- it: regexp_replace is not leakproof, so the lookup may not run before the
-- tenant policy and every typed edge of the repository was read and matched
-- instead (~470 ms twice per run at $GOROOT/src scale, 200k typed edges). A
-- stored column compared with = (leakproof) is found through its index.
ALTER TABLE edges ADD COLUMN target_type_base text NOT NULL GENERATED ALWAYS AS (
    CASE WHEN target_type = '' THEN ''
         ELSE regexp_replace(split_part(target_type, '#', 1), '^(\(\))?(.*\.)?', '') END) STORED;
DROP INDEX IF EXISTS edges_type_base_idx;
CREATE INDEX edges_type_base_idx ON edges (repository_id, target_type_base) WHERE target_type_base <> '';

-- Go implements edges are decided for the directories a run changed, against
-- every Go interface of the repository: a few hundred rows, read without a scan
-- of every symbol.
CREATE INDEX symbols_go_interfaces_idx ON symbols (repository_id) WHERE kind = 'interface' AND language = 'go';

-- The repository's totals, kept by each run from what it wrote and deleted,
-- so that neither a run's summary nor a status refresh counts every symbol and
-- edge (~280 ms at $GOROOT/src scale, 560k edges). NULL until first counted.
ALTER TABLE repositories
    ADD COLUMN stat_files integer,
    ADD COLUMN stat_edges integer;

-- A rewritten file's unchanged chunks keep their ids and now their vector rows
-- too (engine/index vectors.go): re-inserting each cost an HNSW insertion per
-- index, the largest part of a one-file change. The foreign key's cascade
-- deleted them with the symbol rows; the indexer deletes them explicitly, as it
-- does postings (migration 0003).
ALTER TABLE symbol_embeddings DROP CONSTRAINT IF EXISTS symbol_embeddings_repository_id_symbol_id_fkey;
