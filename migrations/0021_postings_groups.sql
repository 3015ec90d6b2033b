-- 0021_postings_groups: a postings row holds a term's postings of a group of
-- files (issue 39 item 3: $GOROOT/src's data directory within 2x zoekt's index).
--
-- Migration 0017 packed a term's postings of one file into a row. At
-- $GOROOT/src (3.9M postings) that was 1.76M rows whose packed data came to
-- 17.7 MB of a 138 MB heap: the rest was each row's header, keys and tenant,
-- and the two indexes (21 + 13 MB) held a pointer per row. Now a row holds a
-- term's postings of every file of a postings group (files.postings_group):
-- the files a write batch adds, at most 64 (engine/index/postgroups.go): files
-- near each other in path order, the order a run lists them in. The data keeps its format
-- (engine/postings: symbol id deltas, ascending): a group's row is the union of
-- its files' postings, which readers decode as they did one file's. Measured
-- at $GOROOT/src (docs/BENCHMARKS.md, 2026-12-07): 651,591 rows instead of
-- 1,756,491; postings with its indexes 80.2 MB instead of 172.2 (heap 61.9
-- against 138.1, term index 13.3 against 21.3, group index 4.7 against the
-- file index's 12.8); the data directory 598.6 MB instead of 690.5.
--
-- A file keeps its group while it is rewritten; a deleted or rewritten file's
-- postings leave its group's rows (the rows are read by group_id, the dropped
-- symbols' postings removed, the changed rows written again), so a change
-- costs the rows of the groups it touches: at most 64 files' terms each.
-- A group's id is the id its first file had when the group was made: file
-- ids are never reused, so neither are group ids.
--
-- Groups of files close in path order share most terms (a package's names),
-- so the rows are few; any bounded grouping would be correct. An incremental
-- run's grouping differs from a clean run's (a new file joins its batch's new
-- group, not its directory's), which only the row count shows: the tests
-- compare postings per symbol and term.
--
-- BM25's path, language and test filters joined each row to its file; they
-- are now checked on the scored chunks (engine/search/bm25.go).
--
-- Existing rows are regrouped here: each repository's files in path order, 64
-- to a group.
-- On Citus, every statement of this transaction over one connection per node:
-- Citus creates the session's functions below over the connection it used
-- for the tables' DDL, and refuses once a statement ran in parallel.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    END IF;
END $$;

ALTER TABLE files ADD COLUMN postings_group bigint;

ALTER TABLE postings RENAME TO postings_0020;
-- The migrating role owns the tables: unforced, row-level security lets it
-- read and update every tenant's rows to convert them.
ALTER TABLE postings_0020 NO FORCE ROW LEVEL SECURITY;
ALTER TABLE files NO FORCE ROW LEVEL SECURITY;

UPDATE files f SET postings_group = g.grp
FROM (
    SELECT repository_id, id, min(id) OVER (PARTITION BY repository_id, (rn - 1) / 64) AS grp
    FROM (SELECT repository_id, id, row_number() OVER (PARTITION BY repository_id ORDER BY path, id) AS rn FROM files) r
) g
WHERE f.repository_id = g.repository_id AND f.id = g.id;

CREATE TABLE postings (
    repository_id bigint  NOT NULL,
    group_id      bigint  NOT NULL, -- files.postings_group of the files whose postings data holds
    n             integer NOT NULL, -- postings in data
    term          text    NOT NULL,
    tenant_id     text    NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    data          bytea   NOT NULL
);

-- On Citus (the old table distributed by `spelunk db distribute`): the new
-- table is distributed the same way before it is filled, and the old rows are
-- first gathered on the coordinator, where the session's decoding functions
-- below exist (a statement over distributed tables runs on the workers). On
-- one server the source is a view of the same join.
DO $$
DECLARE
    distributed boolean := false;
BEGIN
    -- Dynamic SQL: on one server pg_dist_partition does not exist, and a
    -- statement naming it fails when it is planned.
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        EXECUTE $q$SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'postings_0020'::regclass)$q$
            INTO distributed;
    END IF;
    IF distributed THEN
        EXECUTE $q$SELECT create_distributed_table('postings', 'repository_id', colocate_with => 'files')$q$;
        CREATE TEMP TABLE spelunk_0021_source ON COMMIT DROP AS
            SELECT p.repository_id, f.postings_group, p.term, p.tenant_id, p.data
            FROM postings_0020 p JOIN files f ON f.repository_id = p.repository_id AND f.id = p.file_id;
    ELSE
        CREATE TEMP VIEW spelunk_0021_source AS
            SELECT p.repository_id, f.postings_group, p.term, p.tenant_id, p.data
            FROM postings_0020 p JOIN files f ON f.repository_id = p.repository_id AND f.id = p.file_id;
    END IF;
END $$;

CREATE OR REPLACE FUNCTION pg_temp.spelunk_uvarint(x bigint) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    out bytea := '\x';
BEGIN
    LOOP
        IF x < 128 THEN
            RETURN out || set_byte('\x00'::bytea, 0, x::int);
        END IF;
        out := out || set_byte('\x00'::bytea, 0, ((x & 127) | 128)::int);
        x := x >> 7;
    END LOOP;
END $$;

-- spelunk_postings decodes a row's data (engine/postings.Decode).
CREATE OR REPLACE FUNCTION pg_temp.spelunk_postings(data bytea) RETURNS TABLE (sym bigint, tf bigint, dl bigint)
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    i int := 0;
    v bigint[] := '{0,0,0}';
    x bigint;
    b int;
    shift int;
    prev bigint := 0;
BEGIN
    WHILE i < length(data) LOOP
        FOR k IN 1..3 LOOP
            x := 0;
            shift := 0;
            LOOP
                b := get_byte(data, i);
                i := i + 1;
                x := x | ((b & 127)::bigint << shift);
                EXIT WHEN b < 128;
                shift := shift + 7;
            END LOOP;
            v[k] := x;
        END LOOP;
        prev := prev + v[1];
        sym := prev;
        tf := v[2];
        dl := v[3];
        RETURN NEXT;
    END LOOP;
END $$;

INSERT INTO postings (repository_id, group_id, n, term, tenant_id, data)
SELECT repository_id, group_id, count(*), term, tenant_id,
       string_agg(pg_temp.spelunk_uvarint(sym - prev) || pg_temp.spelunk_uvarint(tf)
           || pg_temp.spelunk_uvarint(dl), '\x'::bytea ORDER BY sym)
FROM (
    SELECT p.repository_id, p.postings_group AS group_id, p.term, p.tenant_id, d.sym, d.tf, d.dl,
           coalesce(lag(d.sym) OVER (PARTITION BY p.repository_id, p.postings_group, p.term ORDER BY d.sym), 0) AS prev
    FROM pg_temp.spelunk_0021_source p
    CROSS JOIN LATERAL pg_temp.spelunk_postings(p.data) d
) x
GROUP BY repository_id, term, group_id, tenant_id
ORDER BY repository_id, term, group_id;

-- The view (one server) goes with the table it reads; the temporary table
-- (Citus) with the transaction.
DROP TABLE postings_0020 CASCADE;
ALTER TABLE files FORCE ROW LEVEL SECURITY;

CREATE INDEX postings_term_idx ON postings (repository_id, term);
CREATE INDEX postings_group_idx ON postings (repository_id, group_id);

ALTER TABLE postings ENABLE ROW LEVEL SECURITY;
ALTER TABLE postings FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON postings
    USING (tenant_id = current_setting('spelunk.tenant', true))
    WITH CHECK (tenant_id = current_setting('spelunk.tenant', true));

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spelunk_app') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON postings TO spelunk_app;
    END IF;
END $$;
