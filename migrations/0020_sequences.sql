-- 0020_sequences: identity columns become columns with a sequence default
-- (issue 39 item 5: spelunk on a real Citus cluster).
--
-- Citus refuses to distribute a table with an identity column once it has
-- become a Citus-managed local table, which every table referencing
-- `repositories` does when that one becomes a reference table:
-- create_distributed_table('files', 'repository_id') failed with "cannot
-- complete operation on a table with identity column". A column whose default
-- is nextval() of a sequence it owns behaves the same for spelunk: the
-- sequence keeps its name (<table>_id_seq) and position, so
-- pg_get_serial_sequence and the indexer's id allocation (index/copy.go) are
-- unchanged, and on Citus the sequence is created on every node.
--
-- One difference: GENERATED ALWAYS refused an explicit id; no statement of
-- spelunk gives one to those tables.
DO $$
DECLARE
    t      text;
    seq    text;
    last   bigint;
    called boolean;
BEGIN
    FOREACH t IN ARRAY ARRAY['repositories', 'files', 'symbols', 'edges', 'memory_events',
        'nugget_history', 'state_compilations']
    LOOP
        seq := pg_get_serial_sequence(t, 'id');
        EXECUTE format('SELECT last_value, is_called FROM %s', seq) INTO last, called;
        EXECUTE format('ALTER TABLE %I ALTER COLUMN id DROP IDENTITY', t);
        EXECUTE format('CREATE SEQUENCE %I AS bigint OWNED BY %I.id', t || '_id_seq', t);
        PERFORM setval(format('%I', t || '_id_seq')::regclass, last, called);
        EXECUTE format('ALTER TABLE %I ALTER COLUMN id SET DEFAULT nextval(%L::regclass)',
            t, t || '_id_seq');
    END LOOP;
END $$;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spelunk_app') THEN
        GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO spelunk_app;
    END IF;
END $$;
