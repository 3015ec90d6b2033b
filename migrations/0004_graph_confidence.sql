-- 0004_graph_confidence: a code graph you can trust (issue 12).
--
-- edges.confidence says how a target was chosen:
--   exact      by scope or type (same-file function, receiver/self match, a typed
--              qualifier, a package selector through an import to a unique definition)
--   inferred   by import/module or a unique-name fallback, or through a base type
--   ambiguous  several candidates remain; candidates lists them all and target_id is
--              the first (ordered by path, start_line, kind, qualified_name, never by id)
--   unresolved no target
-- edges.target_type is the qualifier's type as the parser saw it ("B", "pkg.B", "()F"
-- for the result of calling F). symbols.result_type and symbols.embeds carry what the
-- resolver needs to follow a call's result and Go's promoted methods.
ALTER TABLE edges ADD COLUMN confidence text NOT NULL DEFAULT 'unresolved'
    CHECK (confidence IN ('exact','inferred','ambiguous','unresolved'));
ALTER TABLE edges ADD COLUMN target_type text NOT NULL DEFAULT '';
ALTER TABLE edges ADD COLUMN candidates bigint[];

-- "Who may call X": the ambiguous edges that list X among their candidates.
CREATE INDEX edges_candidates_idx ON edges USING gin (candidates) WHERE candidates IS NOT NULL;

ALTER TABLE symbols ADD COLUMN result_type text;
ALTER TABLE symbols ADD COLUMN embeds text[];

-- Rows indexed before this migration: a resolved edge was chosen by name, and
-- none carries the types. No stored file passes for current any more, so the next
-- index run parses every file again (the rows keep serving until then). Under
-- FORCE ROW LEVEL SECURITY a migrator that is not superuser sees no rows here;
-- `spelunk index --full` does the same.
UPDATE edges SET confidence = 'inferred' WHERE target_id IS NOT NULL OR target_file_id IS NOT NULL;
UPDATE files SET blob_sha = NULL;
