-- 0014_no_row_checks: a bulk load without a foreign-key check per row (issue 13
-- item 2).
--
-- Every inserted edge ran two foreign-key checks (its file, its source symbol)
-- and every symbol one (its file): each a lookup and a row lock on the parent.
-- Measured on 200k edges of $GOROOT/src: 13.2 s with the checks, 5.7 s without;
-- 30k symbols: 21.7 s and 15.0 s. The indexer is the only writer of these rows
-- and writes a file's symbols and edges with the file, in one transaction; it
-- deletes them with the file explicitly (engine/index deleteFileRows), as it
-- already does for vectors (0013) and postings (0003).
ALTER TABLE edges DROP CONSTRAINT IF EXISTS edges_repository_id_file_id_fkey;
ALTER TABLE edges DROP CONSTRAINT IF EXISTS edges_repository_id_source_id_fkey;
ALTER TABLE symbols DROP CONSTRAINT IF EXISTS symbols_repository_id_file_id_fkey;

-- Rows the cascade would have removed but that a crash between the old
-- statements could not leave: none exist; this only makes sure of it.
DELETE FROM edges e WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.repository_id = e.repository_id AND f.id = e.file_id);
DELETE FROM symbols s WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.repository_id = s.repository_id AND f.id = s.file_id);
