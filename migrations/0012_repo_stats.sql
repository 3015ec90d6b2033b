-- 0012_repo_stats: the figures a search needs before its channels run (the
-- chunks, BM25's document count and average weighted length) were counted over
-- every symbol of the repository by each new searcher and again every minute:
-- 240 + 300 ms at 62k chunks, paid by every CLI search process and by one MCP
-- call a minute. Index runs now store them; stat_drift counts the files written
-- or deleted since they were counted, and a run recounts once that passes a
-- tenth of the repository (BM25's statistics move little with a few files).
ALTER TABLE repositories
    ADD COLUMN stat_chunks integer,
    ADD COLUMN stat_docs integer,
    ADD COLUMN stat_avg_length real,
    ADD COLUMN stat_drift integer NOT NULL DEFAULT 0;
