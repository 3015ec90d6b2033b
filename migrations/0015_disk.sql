-- 0015_disk: the index of $GOROOT/src on a laptop-sized disk (issue 13 item 4).
--
-- Symbol vectors as halfvec: 2 bytes a dimension instead of 4, in the table and
-- in every HNSW graph over it. The vectors are unit length, so float16 keeps
-- ~3 significant digits of each component and cosine ranks move only between
-- near-ties. Memory vectors stay vector (a few per project).
--
-- The HNSW indexes are expressions over the old type (embedding::vector(N)):
-- each is dropped, the column rewritten, and each built again from its own
-- definition with the halfvec cast and operator class, under its own name (the
-- models' indexes and the repositories' own ones alike).
CREATE TEMP TABLE spelunk_0015_hnsw ON COMMIT DROP AS
    SELECT indexname, indexdef FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename = 'symbol_embeddings' AND indexdef LIKE '%USING hnsw%';

DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT indexname FROM spelunk_0015_hnsw LOOP
        EXECUTE format('DROP INDEX %I', r.indexname);
    END LOOP;
END $$;

ALTER TABLE symbol_embeddings ALTER COLUMN embedding TYPE halfvec USING embedding::halfvec;

DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT indexdef FROM spelunk_0015_hnsw LOOP
        EXECUTE replace(replace(r.indexdef, '::vector(', '::halfvec('), 'vector_cosine_ops', 'halfvec_cosine_ops');
    END LOOP;
END $$;

-- One lexical structure per job. BM25 (the default lexical scorer) reads the
-- postings; the literal channel (on by default) needs only the GIN index of the
-- words to find a phrase's candidates, and the "cd" scorer (ts_rank_cd, kept
-- for comparison) the index and the positions of the few thousand rows it
-- ranks, which it computes (engine/search: symbolTSV). So the stored tsvector
-- keeps its lexemes only (strip: no positions, no weights): 83 MB -> 42 MB at
-- $GOROOT/src. Not an expression index instead of the column: to_tsvector and
-- setweight are not leakproof, so under row-level security the planner may not
-- use such an index before the tenant policy (as in 0013). Adding the column
-- rewrites the table, which also frees the old column's bytes.
DROP INDEX IF EXISTS symbols_tsv_idx;
ALTER TABLE symbols DROP COLUMN IF EXISTS tsv;
ALTER TABLE symbols ADD COLUMN tsv tsvector GENERATED ALWAYS AS (strip(
    setweight(to_tsvector('simple', search_name), 'A') ||
    setweight(to_tsvector('simple', search_signature), 'B') ||
    setweight(to_tsvector('simple', search_body), 'C'))) STORED;
CREATE INDEX symbols_tsv_idx ON symbols USING gin (tsv);
