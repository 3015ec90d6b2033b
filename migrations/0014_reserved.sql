-- 0014_reserved: a placeholder on branch i16sync only. Another helper of the
-- same session may take 0014; the loader refuses a gap, so this keeps 0015
-- loadable here. Drop it at merge (or renumber 0015 to 0014 when nobody took it).
SELECT 1;
