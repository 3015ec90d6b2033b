package memory

// SQL shared by the files of this package. Each concern keeps the rest of its SQL
// next to the function that runs it.

// memoryColumns selects a Memory from alias m.
const memoryColumns = `m.id::text AS id, m.kind, m.author, m.content, m.status,
	m.parent_ids::text[] AS parent_ids, coalesce(m.superseded_by::text, '') AS superseded_by,
	coalesce(m.status_by, '') AS status_by, coalesce(m.status_reason, '') AS status_reason,
	m.status_at, m.tombstoned_at, coalesce(m.tombstone_reason, '') AS tombstone_reason, m.created_at`

// liveStatuses are the statuses of memories that still stand.
const liveStatuses = `('ACTIVE', 'DISPUTED', 'PENDING_EMBEDDING', 'NEEDS_REVIEW')`

// vectorStatuses are the live statuses with a vector: conflict candidates and the
// dense channels.
const vectorStatuses = `('ACTIVE', 'DISPUTED', 'NEEDS_REVIEW')`

// transitionSQL changes a memory's status, if it is still from_status, and records
// the event, in one statement. It returns the memory id when it applied.
//
//	$1 project  $2 memory  $3 to  $4 superseded_by  $5 actor  $6 reason
//	$7 from     $8 action  $9 conflict id
const transitionSQL = `
WITH u AS (
	UPDATE memories SET
		status = $3,
		superseded_by = CASE WHEN $3 = 'SUPERSEDED' THEN nullif($4, '')::uuid
			WHEN status = 'SUPERSEDED' THEN NULL ELSE superseded_by END,
		tombstoned_at = CASE WHEN $3 = 'INVALIDATED' THEN now()
			WHEN status = 'INVALIDATED' THEN NULL ELSE tombstoned_at END,
		tombstone_reason = CASE WHEN $3 = 'INVALIDATED' THEN $6
			WHEN status = 'INVALIDATED' THEN NULL ELSE tombstone_reason END,
		status_by = $5, status_reason = nullif($6, ''), status_at = now()
	WHERE repository_id = $1 AND id = $2::uuid AND status = $7
	RETURNING id
)
INSERT INTO memory_events (repository_id, memory_id, action, from_status, to_status, actor, reason, conflict_id)
SELECT $1, u.id, $8, $7, $3, $5, nullif($6, ''), nullif($9, '')::uuid FROM u
RETURNING memory_id::text`

// citusInsertSelect: an event's id is new from its sequence, so ON CONFLICT
// DO NOTHING changes nothing on one server; on Citus it makes an INSERT ...
// SELECT of rows the coordinator computed run as an INSERT on the shard
// rather than a COPY into it, which row-level security refuses
// (docs/OPERATIONS.md, "Scaling out on Citus").

// disputeSQL marks the ACTIVE memories among $2 DISPUTED and records the events,
// in one statement (a conflict can touch many memories at once). Each memory gets
// its own reason ($4, parallel to $2): the new memory names the ones it
// contradicts, they name it, so no reason points at its own memory.
//
//	$1 project  $2 memory ids  $3 actor  $4 reasons  $5 conflict id
const disputeSQL = `
WITH r AS (
	SELECT * FROM unnest($2::uuid[], $4::text[]) AS r(id, reason)
), u AS (
	UPDATE memories m SET status = 'DISPUTED', status_by = $3, status_reason = r.reason, status_at = now()
	FROM r
	WHERE m.repository_id = $1 AND m.id = r.id AND m.status = 'ACTIVE'
	RETURNING m.id, r.reason
)
INSERT INTO memory_events (repository_id, memory_id, action, from_status, to_status, actor, reason, conflict_id)
SELECT $1, u.id, 'dispute', 'ACTIVE', 'DISPUTED', $3, u.reason, $5::uuid FROM u
ON CONFLICT DO NOTHING` // citusInsertSelect

// eventSQL records an event without a status change (an addition).
const eventSQL = `INSERT INTO memory_events (repository_id, memory_id, action, from_status, to_status, actor, reason, conflict_id)
VALUES ($1, $2::uuid, $3, nullif($4, ''), nullif($5, ''), $6, nullif($7, ''), nullif($8, '')::uuid)`
