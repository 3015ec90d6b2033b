-- 0022_slim_rows: code rows without what the files table already holds
-- (issue 39 item 3: the disk of a first index of $GOROOT/src).
--
-- edges.path was the path of the edge's file, which files.path holds for its
-- file_id: 29 of the ~157 bytes an edge row took. symbols.revision was the
-- commit its file was indexed at, which files.revision holds: every writer
-- stored the file's revision in both and the relabelling of unchanged files
-- (index/relabel.go) set both, so the two never differed (0 of 101,072 at
-- $GOROOT/src). symbols.search_name and search_signature were the
-- identifier-split words of the name, qualified name and aliases, and of the
-- signature (index.SearchText), 86 bytes a row: since 0018 only the dense
-- channel's soft term matching read them, which now computes them from those
-- columns (index.WordText, the same text). Readers take a symbol's revision
-- and an edge's path from its file (symbols.Columns reads the revision by key).
--
-- A first index of $GOROOT/src (598,192 edges, 126,269 symbol rows) into a
-- fresh embedded cluster: data directory 694.7 MB -> 656.6 MB; edges 154.2 ->
-- 136.2 MB (heap 99.3 -> 81.5), symbols 138.7 -> 122.6 MB (heap 95.3 ->
-- 80.2); docs/BENCHMARKS.md.
--
-- A dropped column keeps its bytes in the rows already written until they
-- are written again (the next index of their file, or a full index; VACUUM
-- FULL edges, symbols at once): the space of an existing database comes back
-- with its rows, that of a new one at once. Citus propagates DROP COLUMN to
-- the shards.
ALTER TABLE edges DROP COLUMN path;
ALTER TABLE symbols DROP COLUMN revision;
ALTER TABLE symbols DROP COLUMN search_name;
ALTER TABLE symbols DROP COLUMN search_signature;
