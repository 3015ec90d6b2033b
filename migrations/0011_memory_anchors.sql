-- 0011_memory_anchors: memories anchored to code (issue 17). A memory that names a
-- definition or a file of its repository gets an anchor per name: the symbol's
-- path, qualified name and content hash when the memory was written (or last
-- confirmed). An index run that changes, removes or renames an anchored
-- definition marks the anchor and sends the memory to review (NEEDS_REVIEW).

-- NEEDS_REVIEW is a live status: briefed, searched, recalled, marked.
ALTER TABLE memories DROP CONSTRAINT memories_status_check;
ALTER TABLE memories ADD CONSTRAINT memories_status_check
    CHECK (status IN ('ACTIVE','SUPERSEDED','DISPUTED','INVALIDATED','PENDING_EMBEDDING','NEEDS_REVIEW'));
DROP INDEX memories_live_recent_idx;
CREATE INDEX memories_live_recent_idx ON memories (repository_id, created_at DESC)
    WHERE status IN ('ACTIVE', 'DISPUTED', 'PENDING_EMBEDDING', 'NEEDS_REVIEW');

CREATE TABLE memory_anchors (
    repository_id  bigint      NOT NULL,
    memory_id      uuid        NOT NULL,
    path           text        NOT NULL,            -- the file (after a rename: the new path)
    name           text        NOT NULL DEFAULT '', -- the qualified name; '' anchors the whole file
    kind           text        NOT NULL,            -- the symbol's kind, or 'file'
    tenant_id      text        NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    content_hash   text        NOT NULL,            -- pinned: the definition (or file) when written or confirmed
    content        text        NOT NULL DEFAULT '', -- pinned definition text, for the diff a review shows
    state          text        NOT NULL DEFAULT 'current'
                   CHECK (state IN ('current','changed','removed','renamed')),
    old_path       text,                            -- renamed: the path it was pinned at
    explicit       boolean     NOT NULL DEFAULT false, -- given with --anchor / anchors, not found in the text
    pinned_at      timestamptz NOT NULL DEFAULT now(),
    changed_at     timestamptz,
    PRIMARY KEY (repository_id, memory_id, path, name),
    FOREIGN KEY (repository_id, memory_id) REFERENCES memories (repository_id, id) ON DELETE CASCADE
);
-- An index run checks the anchors of the paths it wrote or deleted.
CREATE INDEX memory_anchors_path_idx ON memory_anchors (repository_id, path);

ALTER TABLE memory_anchors ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_anchors FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memory_anchors
    USING (tenant_id = current_setting('spelunk.tenant', true))
    WITH CHECK (tenant_id = current_setting('spelunk.tenant', true));

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spelunk_app') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON memory_anchors TO spelunk_app;
    END IF;
END $$;
