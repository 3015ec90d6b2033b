-- 0001_init: the whole schema of DESIGN.md §3.
--
-- Conventions
--  * Every table carries tenant_id (row-level security) and, except the global
--    embedding_models catalogue, repository_id as the first column of its key, so the
--    tables can be distributed by repository (Citus) or sharded without cross-shard joins.
--  * tenant_id defaults to the session's spelunk.tenant setting, which the engine sets on
--    every connection; the RLS policies compare against the same setting.
--  * The application connects as (or SET ROLE to) spelunk_app, which owns nothing, so
--    the policies apply to it. FORCE ROW LEVEL SECURITY makes them apply to a
--    non-superuser owner as well.

CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE repositories (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id        text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    name             text        NOT NULL,
    root             text        NOT NULL,
    default_branch   text,
    last_commit      text,          -- last fully indexed commit; NULL until the first run ends
    working_tree     boolean     NOT NULL DEFAULT false, -- the last run also indexed uncommitted changes
    embedding_model  text,
    indexing_started timestamptz,  -- set while a run is in progress (crash detection)
    last_indexed_at  timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, root)
);

CREATE TABLE files (
    repository_id    bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
    id               bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id        text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    path             text        NOT NULL,
    blob_sha         text,
    revision         text        NOT NULL,          -- commit SHA or 'working-tree'
    language         text,
    size_bytes       bigint      NOT NULL DEFAULT 0,
    content_hash     text,
    status           text        NOT NULL,          -- indexed | partial | skipped
    skip_reason      text,                          -- binary, too-large, minified, ...
    notes            text[]      NOT NULL DEFAULT '{}',
    secrets_redacted integer     NOT NULL DEFAULT 0,
    is_test          boolean     NOT NULL DEFAULT false,
    indexed_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository_id, id),
    UNIQUE (repository_id, path)
);

CREATE TABLE symbols (
    repository_id    bigint      NOT NULL,
    id               bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id        text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    file_id          bigint      NOT NULL,
    path             text        NOT NULL,
    name             text        NOT NULL,
    qualified_name   text        NOT NULL,
    aliases          text[]      NOT NULL DEFAULT '{}',
    kind             text        NOT NULL,
    parent_id        bigint,
    receiver         text,
    signature        text        NOT NULL DEFAULT '',
    doc              text        NOT NULL DEFAULT '',
    start_line       integer     NOT NULL,
    end_line         integer     NOT NULL,
    start_byte       integer     NOT NULL,
    end_byte         integer     NOT NULL,
    content          text        NOT NULL,          -- redacted source, cut by line range
    content_hash     text        NOT NULL,
    language         text,
    exported         boolean     NOT NULL DEFAULT false,
    is_test          boolean     NOT NULL DEFAULT false,
    revision         text        NOT NULL,
    embedding_state  text        NOT NULL DEFAULT 'pending', -- pending | embedded
    -- identifier-split text (isEligibleForRefund -> "is eligible for refund isEligibleForRefund"),
    -- computed by the indexer, weighted name > signature > body.
    search_name      text        NOT NULL DEFAULT '',
    search_signature text        NOT NULL DEFAULT '',
    search_body      text        NOT NULL DEFAULT '',
    tsv              tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', search_name), 'A') ||
        setweight(to_tsvector('simple', search_signature), 'B') ||
        setweight(to_tsvector('simple', search_body), 'C')) STORED,
    PRIMARY KEY (repository_id, id),
    FOREIGN KEY (repository_id, file_id) REFERENCES files (repository_id, id) ON DELETE CASCADE
);
CREATE INDEX symbols_file_idx        ON symbols (repository_id, file_id);
CREATE INDEX symbols_name_idx        ON symbols (repository_id, name);
CREATE INDEX symbols_lower_name_idx  ON symbols (repository_id, lower(name));
CREATE INDEX symbols_qualified_idx   ON symbols (repository_id, lower(qualified_name));
CREATE INDEX symbols_path_line_idx   ON symbols (repository_id, path, start_line);
CREATE INDEX symbols_aliases_idx     ON symbols USING gin (aliases);
CREATE INDEX symbols_tsv_idx         ON symbols USING gin (tsv);
CREATE INDEX symbols_name_trgm_idx   ON symbols USING gin (lower(name) gin_trgm_ops);
CREATE INDEX symbols_pending_idx     ON symbols (repository_id) WHERE embedding_state = 'pending';

-- One row per embedding model ever registered. Registering a model creates a partial
-- expression HNSW index for it on symbol_embeddings and memory_embeddings
-- (engine/pg: RegisterModel), so vector spaces never mix and a re-embed with a new model
-- can run while the old one serves.
CREATE TABLE embedding_models (
    name       text        PRIMARY KEY,
    dims       integer     NOT NULL CHECK (dims > 0 AND dims <= 16000),
    index_name text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE symbol_embeddings (
    repository_id bigint      NOT NULL,
    symbol_id     bigint      NOT NULL,
    model         text        NOT NULL REFERENCES embedding_models (name),
    tenant_id     text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    content_hash  text        NOT NULL,  -- the symbol content this vector was computed from
    embedding     vector      NOT NULL,  -- no fixed dims: cast per model in the partial index
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository_id, symbol_id, model),
    FOREIGN KEY (repository_id, symbol_id) REFERENCES symbols (repository_id, id) ON DELETE CASCADE
);
-- Reuse across re-indexing: a symbol whose content hash and model are unchanged keeps
-- its vector even when its row is replaced.
CREATE INDEX symbol_embeddings_hash_idx ON symbol_embeddings (repository_id, model, content_hash);

CREATE TABLE edges (
    repository_id    bigint  NOT NULL,
    id               bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id        text    NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    file_id          bigint  NOT NULL,
    source_id        bigint  NOT NULL,
    kind             text    NOT NULL CHECK (kind IN ('calls','imports','inherits','implements','contains','references')),
    target_id        bigint,          -- NULL when unresolved
    target_name      text    NOT NULL, -- as written
    target_qualifier text    NOT NULL DEFAULT '',
    target_file_id   bigint,          -- imports resolved to a file
    path             text    NOT NULL,
    line             integer NOT NULL,
    PRIMARY KEY (repository_id, id),
    FOREIGN KEY (repository_id, file_id) REFERENCES files (repository_id, id) ON DELETE CASCADE,
    FOREIGN KEY (repository_id, source_id) REFERENCES symbols (repository_id, id) ON DELETE CASCADE
);
CREATE INDEX edges_source_idx ON edges (repository_id, source_id, kind);
CREATE INDEX edges_target_idx ON edges (repository_id, target_id, kind);
CREATE INDEX edges_target_file_idx ON edges (repository_id, target_file_id) WHERE target_file_id IS NOT NULL;
CREATE INDEX edges_unresolved_idx ON edges (repository_id, target_name) WHERE target_id IS NULL;
CREATE INDEX edges_file_idx ON edges (repository_id, file_id);

-- Agent memory (DESIGN.md §8). The project is the repository row.
CREATE TABLE memories (
    repository_id    bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
    id               uuid        NOT NULL,
    tenant_id        text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    parent_ids       uuid[]      NOT NULL DEFAULT '{}', -- lineage: a correction or a merge
    author           text        NOT NULL,
    kind             text        NOT NULL CHECK (kind IN ('fact','decision','rule','episode')),
    content          text        NOT NULL,
    content_hash     text        NOT NULL,
    status           text        NOT NULL DEFAULT 'ACTIVE'
                     CHECK (status IN ('ACTIVE','SUPERSEDED','DISPUTED','INVALIDATED','PENDING_EMBEDDING')),
    superseded_by    uuid,
    status_by        text,
    status_reason    text,
    status_at        timestamptz,
    tombstoned_at    timestamptz,
    tombstone_reason text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository_id, id)
);
CREATE INDEX memories_status_idx ON memories (repository_id, status, created_at DESC);
CREATE INDEX memories_author_idx ON memories (repository_id, author);

CREATE TABLE memory_embeddings (
    repository_id bigint      NOT NULL,
    memory_id     uuid        NOT NULL,
    model         text        NOT NULL REFERENCES embedding_models (name),
    tenant_id     text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    embedding     vector      NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository_id, memory_id, model),
    FOREIGN KEY (repository_id, memory_id) REFERENCES memories (repository_id, id) ON DELETE CASCADE
);

-- Every status change of a memory, for audit and undo.
CREATE TABLE memory_events (
    repository_id bigint      NOT NULL,
    id            bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id     text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    memory_id     uuid        NOT NULL,
    action        text        NOT NULL,
    from_status   text,
    to_status     text,
    actor         text        NOT NULL,
    reason        text,
    conflict_id   uuid,
    at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository_id, id)
);
CREATE INDEX memory_events_memory_idx ON memory_events (repository_id, memory_id, at);

CREATE TABLE nuggets (
    repository_id bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
    key           text        NOT NULL,
    tenant_id     text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    value         text        NOT NULL,
    author        text        NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted       boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (repository_id, key)
);

CREATE TABLE nugget_history (
    repository_id bigint      NOT NULL,
    id            bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id     text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    key           text        NOT NULL,
    value         text        NOT NULL,
    author        text        NOT NULL,
    written_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (repository_id, id)
);
CREATE INDEX nugget_history_key_idx ON nugget_history (repository_id, key, written_at);

CREATE TABLE state_compilations (
    repository_id bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
    id            bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id     text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    summary       text        NOT NULL,
    blockers      text[]      NOT NULL DEFAULT '{}',
    priorities    text[]      NOT NULL DEFAULT '{}',
    author        text        NOT NULL,
    compiled_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (repository_id, id)
);
CREATE INDEX state_compilations_latest_idx ON state_compilations (repository_id, compiled_at DESC);

CREATE TABLE conflicts (
    repository_id bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
    id            uuid        NOT NULL,
    tenant_id     text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    memory_ids    uuid[]      NOT NULL,
    similarity    real        NOT NULL,
    reason        text        NOT NULL,
    status        text        NOT NULL DEFAULT 'open' CHECK (status IN ('open','resolved')),
    resolution    text,        -- keep:<id> | both | merge:<id> | invalidate:<id>
    resolver      text,
    note          text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    resolved_at   timestamptz,
    PRIMARY KEY (repository_id, id)
);
CREATE INDEX conflicts_open_idx ON conflicts (repository_id, status, created_at);
CREATE INDEX conflicts_members_idx ON conflicts USING gin (memory_ids);

-- Pairs a human decided may both stand ("keep both"): never flagged again.
CREATE TABLE conflict_exemptions (
    repository_id bigint      NOT NULL,
    memory_a      uuid        NOT NULL, -- memory_a < memory_b
    memory_b      uuid        NOT NULL,
    tenant_id     text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    conflict_id   uuid        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository_id, memory_a, memory_b)
);

-- Row-level security: every tenant-scoped table gets the same policy.
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['repositories','files','symbols','symbol_embeddings','edges',
        'memories','memory_embeddings','memory_events','nuggets','nugget_history',
        'state_compilations','conflicts','conflict_exemptions']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_isolation ON %I
            USING (tenant_id = current_setting('spelunk.tenant', true))
            WITH CHECK (tenant_id = current_setting('spelunk.tenant', true))$p$, t);
    END LOOP;
END $$;

-- The application role owns nothing, so RLS always applies to it. Roles are
-- cluster-wide; a server where we may not create roles keeps working through FORCE RLS
-- on a non-superuser owner (engine/pg decides at connect time).
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spelunk_app') THEN
        CREATE ROLE spelunk_app NOLOGIN;
    END IF;
    EXECUTE format('GRANT spelunk_app TO %I', current_user);
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'spelunk: cannot create role spelunk_app (%); relying on FORCE ROW LEVEL SECURITY', SQLERRM;
END $$;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spelunk_app') THEN
        GRANT USAGE ON SCHEMA public TO spelunk_app;
        GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO spelunk_app;
        GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO spelunk_app;
        -- Tables and indexes created later (migrations, model registration) too.
        ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO spelunk_app;
        ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO spelunk_app;
    END IF;
END $$;

-- Under RLS the planner only uses a qualifier inside an index scan when its functions
-- are LEAKPROOF; otherwise it must run the tenant policy first and the GIN/trigram
-- indexes go unused (a sequential scan per query). These operators reveal nothing about
-- rows they are not given, so on a server where we are superuser (the embedded cluster)
-- we mark them LEAKPROOF in this database. Elsewhere lexical search still works, slower;
-- `spelunk doctor` reports it.
DO $$
BEGIN
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF;
        ALTER FUNCTION lower(text) LEAKPROOF;
        ALTER FUNCTION similarity_op(text, text) LEAKPROOF;
        ALTER FUNCTION word_similarity_op(text, text) LEAKPROOF;
        ALTER FUNCTION arraycontains(anyarray, anyarray) LEAKPROOF;
        ALTER FUNCTION arrayoverlap(anyarray, anyarray) LEAKPROOF;
    END IF;
END $$;
