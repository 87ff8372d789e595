-- PostgreSQL takes event seqs from a sequence from this version on (see its
-- 0007). SQLite keeps `MAX(seq) + 1` under the database write lock, where
-- events commit in seq order; nothing changes here, and the version keeps
-- both folders at the same number.
SELECT 1;
