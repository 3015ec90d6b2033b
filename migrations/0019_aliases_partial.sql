-- 0019_aliases_partial: the indexes on symbols.aliases hold only the symbols
-- that have aliases.
--
-- Most symbols have none (no Python symbol of sqlalchemy has one), yet each
-- row put an entry for its empty array into the GIN index, through its pending
-- list, which every lookup reads whole. And the scoped resolution looked the
-- aliases up with `aliases && ARRAY[every name its edges use]`: GIN compares
-- each key of such a query with every key before it, so a 192-file change
-- (117k names, duplicates included) spent 137 s in that one lookup.
--
-- Now the GIN index (lookups of one name: find, the search's name channel)
-- takes only symbols with aliases, straight into its tree, and a btree of the
-- same rows lists them for the resolution, which unnests them and matches the
-- names by hash. Queries test `aliases <> '{}'` so that the planner can use
-- either.
DROP INDEX IF EXISTS symbols_aliases_idx;
CREATE INDEX symbols_aliases_idx ON symbols USING gin (aliases) WITH (fastupdate = off) WHERE aliases <> '{}';
CREATE INDEX symbols_with_aliases_idx ON symbols (repository_id) WHERE aliases <> '{}';
