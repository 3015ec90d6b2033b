-- 0016_memory_vector_delta: a pushed run's memory vectors land beside the HNSW
-- index, not in it (issue 16: sync of 10k queued writes in under 10 s).
--
-- Inserting into an HNSW graph costs ~2-4 ms a row on a 2-core machine: 9,000
-- pushed memories spent 20-33 s in it, the largest part of a sync. A vector
-- written by a run (engine/memory batchinsert.go) is stored with indexed =
-- false; every nearest-neighbour query over memories reads the HNSW index over
-- the indexed rows and an exact scan of the project's unindexed ones (poolSQL),
-- so a pushed memory is recalled and conflict-checked at once; and
-- Store.IndexDelta moves unindexed rows into the index in small transactions
-- after the sync, off the caller's path (engine/memory delta.go).
ALTER TABLE memory_embeddings ADD COLUMN indexed boolean NOT NULL DEFAULT true;
CREATE INDEX memory_embeddings_delta_idx ON memory_embeddings (repository_id, model) WHERE NOT indexed;

-- Each registered model's memory index now covers the indexed rows only (the
-- same definition as engine/pg hnswDDL writes for a model registered later).
DO $$
DECLARE m record;
BEGIN
    FOR m IN SELECT name, dims, index_name FROM embedding_models LOOP
        EXECUTE format('DROP INDEX IF EXISTS %I', 'memory_embeddings_' || m.index_name);
        EXECUTE format('CREATE INDEX %I ON memory_embeddings USING hnsw ((embedding::vector(%s)) vector_cosine_ops) WHERE model = %L AND indexed',
            'memory_embeddings_' || m.index_name, m.dims, m.name);
    END LOOP;
END $$;

-- The vector's foreign key to its memory is checked once per inserted row by a
-- plan cached on the connection. On a fresh core (no statistics yet) PostgreSQL
-- plans that check on memories_sync_idx, not the primary key, and reads every
-- row of the project per check: 0.9 ms a row on average over a 9,000-memory
-- push (7.9 s), growing with the project. A memory is never deleted on the core
-- (it is tombstoned) and engine/memory writes a vector in the transaction of
-- its memory, so the key to the repository (its cascade) is what is kept, as
-- migration 0013 did for symbol vectors.
ALTER TABLE memory_embeddings DROP CONSTRAINT IF EXISTS memory_embeddings_repository_id_memory_id_fkey;
ALTER TABLE memory_embeddings ADD CONSTRAINT memory_embeddings_repository_fkey
    FOREIGN KEY (repository_id) REFERENCES repositories (id) ON DELETE CASCADE;
