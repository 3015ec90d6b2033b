-- 0007_file_mtime: freshness of results (issue 14).
--
-- A result says it is stale when its file on disk differs from the row it was
-- indexed from. The check is a stat: a file with the stored size and mtime is
-- taken as unchanged, and only one whose mtime differs (or is unknown) is hashed
-- and compared with blob_sha. mtime_ns is the file's modification time in
-- nanoseconds since the epoch when its bytes were read from disk; NULL when
-- unknown: content read from git's object database, a file modified just before
-- it was read (a later write in the same timestamp tick would leave the mtime as
-- it was), and rows indexed before this migration.
ALTER TABLE files ADD COLUMN mtime_ns bigint;

-- The rows a working-tree run stored are checked against the disk by
-- `spelunk status` (a file reverted to its committed content leaves no trace in
-- git status): few rows, found without a scan of the repository's files.
CREATE INDEX files_working_tree_idx ON files (repository_id) WHERE revision = 'working-tree';
