package index

import "fmt"

// A first load writes each edge twice without this: once as parsed, once
// more when the resolution decides it (an UPDATE of about half of them, a new
// row version and an entry in every edge index each), and the table is then
// compacted (VACUUM FULL) to drop the dead versions. At Go's src/net the
// update and the compaction were a quarter of the resolution's time, at
// $GOROOT/src 13% of PostgreSQL's (issue 39).
//
// When the run's session user bypasses row-level security (writer.direct) and
// the edges table holds no other repository's edge, the full pass instead
// writes the repository's edges once more with their decisions, into an
// emptied table: the rows and the decisions joined into a session table,
// TRUNCATE, one INSERT in id order (the order the load wrote them in, and
// the compaction kept), and the indexes other than the primary key (in id
// order too, so kept up by the insert) built again in one sorted pass each,
// as packed as the compaction left them. In the same transaction as the decisions, so a run
// killed meanwhile leaves the edges as the load wrote them, as before. Under
// wal_level=minimal (the embedded cluster) the table emptied in the
// transaction is written without WAL. The table lock (ACCESS EXCLUSIVE, as
// the compaction takes) is given up on after a second, for a search or
// another run's write: the decisions are then applied by the UPDATE, and the
// table compacted, as before.

// rewriteSQL is the rewrite of repository %[1]d's edges, a DO block so that
// the lock, the check and the columns (every column but the generated ones,
// as the catalog lists them) are decided in one statement. It sets
// spelunk.edges_rewritten for the transaction when it rewrote them.
const rewriteSQL = `
DO $rewrite$
DECLARE
	waited text := current_setting('lock_timeout');
	locked boolean := true;
	cols text;
	vals text;
	defs text[];
	def text;
BEGIN
	PERFORM set_config('lock_timeout', '1s', true);
	BEGIN
		LOCK TABLE edges IN ACCESS EXCLUSIVE MODE;
	EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
		locked := false;
	END;
	PERFORM set_config('lock_timeout', waited, true);
	IF NOT locked OR EXISTS (SELECT 1 FROM edges WHERE repository_id <> %[1]d) THEN
		RETURN;
	END IF;
	CREATE TEMP TABLE res_rewrite ON COMMIT DROP AS
		WITH d AS MATERIALIZED (` + decisions + `)
		SELECT e.*, d.id AS res_id, d.sid AS res_sid, d.confidence AS res_conf, d.candidates AS res_cands
		FROM edges e LEFT JOIN d ON d.id = e.id WHERE e.repository_id = %[1]d;
	SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum),
	       string_agg(CASE attname
	                  WHEN 'target_id' THEN 'CASE WHEN res_id IS NULL THEN target_id ELSE res_sid END'
	                  WHEN 'confidence' THEN 'CASE WHEN res_id IS NULL THEN confidence ELSE res_conf END'
	                  WHEN 'candidates' THEN 'CASE WHEN res_id IS NULL THEN candidates ELSE res_cands END'
	                  ELSE quote_ident(attname) END, ', ' ORDER BY attnum)
	INTO cols, vals
	FROM pg_attribute WHERE attrelid = 'public.edges'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '';
	SELECT array_agg(pg_get_indexdef(indexrelid)) INTO defs
	FROM pg_index WHERE indrelid = 'public.edges'::regclass AND NOT indisprimary;
	TRUNCATE edges;
	FOR def IN SELECT format('DROP INDEX %%s', indexrelid::regclass) FROM pg_index
	           WHERE indrelid = 'public.edges'::regclass AND NOT indisprimary LOOP
		EXECUTE def;
	END LOOP;
	EXECUTE format('INSERT INTO edges (%%s) SELECT %%s FROM res_rewrite ORDER BY id', cols, vals);
	PERFORM set_config('maintenance_work_mem', '256MB', true);
	FOREACH def IN ARRAY coalesce(defs, '{}') LOOP
		EXECUTE def;
	END LOOP;
	PERFORM set_config('spelunk.edges_rewritten', 'on', true);
END
$rewrite$`

// skipIfRewritten turns the apply step's UPDATE into nothing after a rewrite
// (a one-time filter: the join is not run).
const skipIfRewritten = `
		  AND current_setting('spelunk.edges_rewritten', true) IS DISTINCT FROM 'on'`

// rewrittenSQL reads whether the rewrite ran.
const rewrittenSQL = `SELECT coalesce(current_setting('spelunk.edges_rewritten', true) = 'on', false)`

// queueRewrite queues the rewrite of repository repoID's edges, as the
// session user (the check must see every tenant's edges; the role is
// AppRole's again after it).
func queueRewrite(b *stepBatch, repoID int64) {
	b.queue("act as the session user", `SET LOCAL ROLE NONE`)
	b.queue("rewrite the edges with their decisions", fmt.Sprintf(rewriteSQL, repoID))
	b.queue("act as the application again", `RESET ROLE`)
}
