-- 0018_one_lexical_structure: the BM25 postings are the one lexical structure
-- (issue 13 items 2 and 4: "no duplicate lexical structures").
--
-- symbols.tsv (a generated tsvector of search_name, search_signature and
-- search_body, with a GIN index) served the ts_rank_cd scorer (`--lexical cd`)
-- and the literal channel's candidates. BM25 has been the default scorer since
-- it was measured against cover density; the literal channel now intersects
-- the phrase's words in the postings (engine/search/literal.go). Computing the
-- vector was most of what a symbol row cost to insert: 6,292 symbols of Go's
-- src/net took 2.14 s with it and 0.64 s without it, and the table with its
-- indexes was 22 MB against 13 MB. search_body existed only to feed it.
--
-- Dropping a column only marks it dropped: the bytes of rows already stored
-- stay until those rows are rewritten (a re-index of their file, or VACUUM FULL).
DROP INDEX IF EXISTS symbols_tsv_idx;
ALTER TABLE symbols DROP COLUMN IF EXISTS tsv;
ALTER TABLE symbols DROP COLUMN IF EXISTS search_body;
