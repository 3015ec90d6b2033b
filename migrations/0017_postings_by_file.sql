-- 0017_postings_by_file: the BM25 postings packed, one row per (term, file)
-- (issue 13 item 4: $GOROOT/src's index within 800 MB).
--
-- One row per (term, symbol) cost 68 bytes of heap and 60 of primary key for
-- an 8-byte fact (postings 524 MB of a 1.14 GB data directory at $GOROOT/src,
-- 3.9M postings). Now a row holds one file's postings of a term in `data`,
-- the format of engine/postings (per posting: symbol id delta, weighted term
-- frequency, weighted length, as unsigned varints), and `n` counts them, so
-- document frequencies are sums of n. 3.9M postings fit in 1.8M rows of ~76
-- bytes, and neither index is unique, so both deduplicate (a key and its row
-- pointers, 6 bytes each): about a third of the old size in all.
--
-- Ranking reads the rows of a query's terms from the heap: the term index has
-- no covering columns. A first bulk load writes them in term order (CLUSTER,
-- engine/pg: BuildPostingsIndexes), so a term's rows share pages, as they do
-- here (inserted in term order).
--
-- A file's rows are replaced with the file (file_id): a rewritten file's
-- postings are written again, all of them.
ALTER TABLE postings RENAME TO postings_0016;
-- The migrating role owns the tables: unforced, row-level security lets it
-- read every tenant's rows to convert them.
ALTER TABLE postings_0016 NO FORCE ROW LEVEL SECURITY;
ALTER TABLE symbols NO FORCE ROW LEVEL SECURITY;

CREATE TABLE postings (
    repository_id bigint  NOT NULL,
    file_id       bigint  NOT NULL,
    n             integer NOT NULL, -- postings in data
    term          text    NOT NULL,
    tenant_id     text    NOT NULL DEFAULT current_setting('spelunk.tenant', true),
    data          bytea   NOT NULL
);

CREATE FUNCTION pg_temp.spelunk_uvarint(x bigint) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    out bytea := '\x';
BEGIN
    LOOP
        IF x < 128 THEN
            RETURN out || set_byte('\x00'::bytea, 0, x::int);
        END IF;
        out := out || set_byte('\x00'::bytea, 0, ((x & 127) | 128)::int);
        x := x >> 7;
    END LOOP;
END $$;

INSERT INTO postings (repository_id, file_id, n, term, tenant_id, data)
SELECT repository_id, file_id, count(*), term, tenant_id,
       string_agg(pg_temp.spelunk_uvarint(symbol_id - prev) || pg_temp.spelunk_uvarint(round(tf)::bigint)
           || pg_temp.spelunk_uvarint(round(dl)::bigint), '\x'::bytea ORDER BY symbol_id)
FROM (
    SELECT p.repository_id, s.file_id, p.term, p.tenant_id, p.symbol_id, p.tf, p.dl,
           coalesce(lag(p.symbol_id) OVER (PARTITION BY p.repository_id, p.term, s.file_id ORDER BY p.symbol_id), 0) AS prev
    FROM postings_0016 p
    JOIN symbols s ON s.repository_id = p.repository_id AND s.id = p.symbol_id
) x
GROUP BY repository_id, term, file_id, tenant_id
ORDER BY repository_id, term, file_id;

DROP TABLE postings_0016;
ALTER TABLE symbols FORCE ROW LEVEL SECURITY;

CREATE INDEX postings_term_idx ON postings (repository_id, term);
CREATE INDEX postings_file_idx ON postings (repository_id, file_id);

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
