-- 0005_fields: fields and state (issue 12).
--
-- Struct and class fields are symbols of kind 'field' under their owner (parent_id;
-- receiver is the owner's name, result_type the field's type). They are graph nodes,
-- not chunks: embedding_state 'none', no search text, no postings, and the retrieval
-- channels leave them out. Reads and writes of a field are edges of kind 'reads' and
-- 'writes' from the enclosing definition, one of each per (definition, qualifier,
-- field), resolved with a confidence like calls.
ALTER TABLE edges DROP CONSTRAINT edges_kind_check;
ALTER TABLE edges ADD CONSTRAINT edges_kind_check
    CHECK (kind IN ('calls','imports','inherits','implements','contains','references','reads','writes'));

-- Rows indexed before this migration have no fields: the next index run parses
-- every file again (see 0004 on row-level security).
UPDATE files SET blob_sha = NULL;
