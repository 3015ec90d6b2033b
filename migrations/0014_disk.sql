-- 0014_disk: the index of $GOROOT/src on a laptop-sized disk (issue 13 item 4).
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
CREATE TEMP TABLE spelunk_0014_hnsw ON COMMIT DROP AS
    SELECT indexname, indexdef FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename = 'symbol_embeddings' AND indexdef LIKE '%USING hnsw%';

DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT indexname FROM spelunk_0014_hnsw LOOP
        EXECUTE format('DROP INDEX %I', r.indexname);
    END LOOP;
END $$;

ALTER TABLE symbol_embeddings ALTER COLUMN embedding TYPE halfvec USING embedding::halfvec;

DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT indexdef FROM spelunk_0014_hnsw LOOP
        EXECUTE replace(replace(r.indexdef, '::vector(', '::halfvec('), 'vector_cosine_ops', 'halfvec_cosine_ops');
    END LOOP;
END $$;
