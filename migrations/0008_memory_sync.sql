-- 0008_memory_sync: what the SQLite edge cache (engine/memcache) needs to pull the
-- difference and to replay its write queue idempotently.

-- A monotonic-enough change column per synced row: set on insert and on every
-- update (a status change, a tombstone, a resolution), so a cache pulls the rows
-- whose sync_at is past its watermark. Readers pull with an overlap window, since
-- clock_timestamp() order is not commit order.
CREATE FUNCTION spelunk_touch_sync_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.sync_at := clock_timestamp();
    RETURN NEW;
END $$;

ALTER TABLE memories ADD COLUMN sync_at timestamptz NOT NULL DEFAULT clock_timestamp();
ALTER TABLE nuggets ADD COLUMN sync_at timestamptz NOT NULL DEFAULT clock_timestamp();
ALTER TABLE conflicts ADD COLUMN sync_at timestamptz NOT NULL DEFAULT clock_timestamp();
CREATE TRIGGER memories_sync_at BEFORE UPDATE ON memories
    FOR EACH ROW EXECUTE FUNCTION spelunk_touch_sync_at();
CREATE TRIGGER nuggets_sync_at BEFORE UPDATE ON nuggets
    FOR EACH ROW EXECUTE FUNCTION spelunk_touch_sync_at();
CREATE TRIGGER conflicts_sync_at BEFORE UPDATE ON conflicts
    FOR EACH ROW EXECUTE FUNCTION spelunk_touch_sync_at();
CREATE INDEX memories_sync_idx ON memories (repository_id, sync_at);
CREATE INDEX nuggets_sync_idx ON nuggets (repository_id, sync_at);
CREATE INDEX conflicts_sync_idx ON conflicts (repository_id, sync_at);

-- Client-generated ids of queued writes: replaying a nugget write or a state
-- compilation a second time changes nothing. (A memory's client id is its own id.)
ALTER TABLE nugget_history ADD COLUMN mutation_id uuid;
CREATE UNIQUE INDEX nugget_history_mutation_idx ON nugget_history (repository_id, mutation_id)
    WHERE mutation_id IS NOT NULL;
ALTER TABLE state_compilations ADD COLUMN mutation_id uuid;
CREATE UNIQUE INDEX state_compilations_mutation_idx ON state_compilations (repository_id, mutation_id)
    WHERE mutation_id IS NOT NULL;
