-- 0021_slim_rows: code rows without what another table already holds (issue 39
-- item 3: the disk of a first index of $GOROOT/src).
--
-- edges.path was the path of the edge's file, which files.path holds for
-- file_id: 29 bytes of the ~157 an edge row took (598k rows at $GOROOT/src).
-- symbols.revision was the commit its file was indexed at, which
-- files.revision holds: every writer stored the file's revision and the one
-- relabelling (index/relabel.go) set both, so the two never differed. Readers
-- take both from files now (symbols.From joins the file of each symbol).
--
-- A dropped column keeps its bytes in the rows already written until they are
-- written again (the next index of their file, or a full one): the space of an
-- existing database comes back with its rows, that of a new one at once. Citus
-- propagates DROP COLUMN to the shards.
ALTER TABLE edges DROP COLUMN path;
ALTER TABLE symbols DROP COLUMN revision;
ALTER TABLE symbols DROP COLUMN search_name;
ALTER TABLE symbols DROP COLUMN search_signature;
