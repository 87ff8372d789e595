-- PostgreSQL takes comment seqs from a sequence from this version on (see its
-- 0015). SQLite keeps the card's `MAX(seq) + 1` under the database write lock;
-- nothing changes here, and the version keeps both folders at the same number.
SELECT 1;
