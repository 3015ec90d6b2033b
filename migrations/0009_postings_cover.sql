-- 0009_postings_cover: BM25 reads every posting of a query's terms (document
-- frequencies, then scores). Under forced row-level security each posting's
-- tenant_id had to be read from the heap, so each posting cost a random heap page
-- (4,095 postings read 3,233 buffers and took ~100 ms at 83k chunks). With tf, dl
-- and tenant_id in the primary key's leaf pages the reads are index-only once
-- (auto)vacuum has set the visibility map: the same query read 55 buffers.
ALTER TABLE postings DROP CONSTRAINT postings_pkey;
ALTER TABLE postings ADD CONSTRAINT postings_pkey PRIMARY KEY (repository_id, term, symbol_id) INCLUDE (tf, dl, tenant_id);
