-- 0006_edge_lookups: incremental resolution in O(change) (issue 13).
--
-- An incremental run reconsiders the edges its change can affect: those naming a
-- definition whose count changed, those naming something the written files define,
-- and those whose qualifier's type the written files define. Without an index for
-- each, every run scanned every edge of the repository (and ran a regular
-- expression on each): seconds for a one-file change in a large repository.
-- edges_name_idx replaces edges_unresolved_idx, which served only unresolved edges.
CREATE INDEX edges_name_idx ON edges (repository_id, target_name);
DROP INDEX IF EXISTS edges_unresolved_idx;
-- The type an edge's target_type names (engine/index: typeBase), written the same
-- way so the planner matches it.
CREATE INDEX edges_type_base_idx ON edges
    (repository_id, (regexp_replace(split_part(target_type, '#', 1), '^(\(\))?(.*\.)?', '')))
    WHERE target_type <> '';
