-- 0023_model_ids: a symbol vector names its model by a small integer (issue 39
-- item 3).
--
-- Every symbol_embeddings row stored its model's name as text (~30 bytes, e.g.
-- 'spelunk-code-256d-v1-8b446efc'), three times over: in the heap, in the
-- primary key (repository_id, symbol_id, model) and in symbol_embeddings_hash_idx
-- (repository_id, model, content_hash). At $GOROOT/src (101k vectors of 284
-- dimensions) rows were ~696 bytes, 11 to a page: 75.3 MB of heap, 6.8 MB of
-- primary key, 9.7 MB of hash index. A smallint id makes rows ~672 bytes, 12
-- to a page: heap 69.0 MB, primary key 4.1 MB, hash index 6.9 MB (182.7 -> 170.9 MB
-- in all; docs/BENCHMARKS.md "Disk right after a first index, round 6").
--
-- embedding_models gets an id (1, 2, ... in order of registration; RegisterModel
-- takes the next one). The model's name stays the API (pg.Model) and the key of
-- memory_embeddings (a few rows a project); the engine reads a model's id once
-- (pg.DB.ModelID) and writes it into the SQL text of the dense queries, as it
-- did the name, so the planner matches the partial HNSW indexes.
--
-- The vector rows no longer reference embedding_models by a foreign key: a
-- check per inserted row, and only the indexer writes them, with the id it read
-- (as 0013 and 0014 did for the symbol and file keys).
ALTER TABLE embedding_models ADD COLUMN id smallint;
UPDATE embedding_models m SET id = o.n
    FROM (SELECT name, row_number() OVER (ORDER BY created_at, name) AS n FROM embedding_models) o
    WHERE m.name = o.name;
ALTER TABLE embedding_models ALTER COLUMN id SET NOT NULL;
ALTER TABLE embedding_models ADD CONSTRAINT embedding_models_id_key UNIQUE (id);

ALTER TABLE symbol_embeddings DROP CONSTRAINT IF EXISTS symbol_embeddings_model_fkey;

-- The HNSW indexes (each model's, each large repository's own) are partial on
-- model = '<name>': each is dropped, the column rewritten in place (one pass
-- over the table, which rebuilds the primary key and the hash index on the id),
-- and each built again from its own definition with model_id = <id>, under its
-- own name, as 0015 did for halfvec.
CREATE TEMP TABLE spelunk_0023_hnsw ON COMMIT DROP AS
    SELECT indexname, indexdef FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename = 'symbol_embeddings' AND indexdef LIKE '%USING hnsw%';

DO $$
DECLARE
    r record;
    ids text;
BEGIN
    FOR r IN SELECT indexname FROM spelunk_0023_hnsw LOOP
        EXECUTE format('DROP INDEX %I', r.indexname);
    END LOOP;
    -- A CASE of literals rather than a lookup: the same expression runs on
    -- every shard of a distributed table.
    SELECT coalesce('CASE model ' || string_agg(format('WHEN %L THEN %s', name, id), ' ') || ' END', 'NULL')
        INTO ids FROM embedding_models;
    EXECUTE 'ALTER TABLE symbol_embeddings ALTER COLUMN model TYPE smallint USING ' || ids;
END $$;

ALTER TABLE symbol_embeddings RENAME COLUMN model TO model_id;

DO $$
DECLARE
    r record;
    m record;
    def text;
BEGIN
    FOR r IN SELECT indexname, indexdef FROM spelunk_0023_hnsw LOOP
        def := r.indexdef;
        FOR m IN SELECT name, id FROM embedding_models LOOP
            def := replace(def, format('(model = %L::text)', m.name), format('(model_id = %s)', m.id));
        END LOOP;
        IF def = r.indexdef THEN
            RAISE EXCEPTION 'migration 0023: index % names no registered model: %', r.indexname, r.indexdef;
        END IF;
        EXECUTE def;
    END LOOP;
END $$;
