-- 0010_candidates_gin: the graph channel looks up ambiguous edges by candidate
-- (candidates @> ARRAY[id]) once per node it walks. With GIN's fast update the
-- resolver's updates of candidates piled up in the index's pending list, which
-- every lookup reads whole: 77k pending entries made each lookup ~6 ms and the
-- graph channel ~100 ms a query on a database holding several repositories
-- (4.7 ms for the whole two-hop walk once flushed). Ambiguous edges are a
-- minority of the edges, so writing them straight into the tree costs little.
ALTER INDEX edges_candidates_idx SET (fastupdate = off);
SELECT gin_clean_pending_list('edges_candidates_idx'::regclass);
