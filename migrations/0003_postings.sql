-- 0003_postings: a postings table for BM25 over identifier-split text, the
-- alternative to ts_rank_cd that DESIGN.md §6 asks to measure (search.Options.Lexical).
--
-- One row per (term, symbol) with a field-weighted term frequency (an occurrence in
-- the name counts 3, in the signature 2, in the body 1: BM25F with fixed weights) and
-- the symbol's weighted length (in each row, and in symbols.doc_length for the
-- average). Document frequencies are counted from the primary key at query time (an
-- index-only range scan per term). Parts of oversized symbols get no postings.
CREATE TABLE postings (
    repository_id bigint NOT NULL,
    term          text   NOT NULL,
    symbol_id     bigint NOT NULL,
    tf            real   NOT NULL,
    dl            real   NOT NULL, -- the symbol's weighted length, here so ranking needs no join
    tenant_id     text   NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    PRIMARY KEY (repository_id, term, symbol_id)
);
-- No foreign key to symbols: checking one per posting (tens per chunk) was the most
-- expensive part of a bulk load. The indexer deletes a file's postings with its
-- symbols, in the same transaction (engine/index: writer.forget).
CREATE INDEX postings_symbol_idx ON postings (repository_id, symbol_id);

ALTER TABLE symbols ADD COLUMN doc_length real NOT NULL DEFAULT 0;

ALTER TABLE postings ENABLE ROW LEVEL SECURITY;
ALTER TABLE postings FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON postings
    USING (tenant_id = current_setting('spelunk.tenant', true))
    WITH CHECK (tenant_id = current_setting('spelunk.tenant', true));

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spelunk_app') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON postings TO spelunk_app;
    END IF;
END $$;
