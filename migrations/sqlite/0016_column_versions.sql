-- Finer locks for moves (issue 32): a card moved to the end of another column
-- locks that column's row (and shares its sets' rows) instead of the whole
-- set, and advances columns.version in the lock's statement. The tag of a
-- board (contract §22) adds the sum of its columns' versions to the set's and
-- the settings' versions, so a move made under a column's lock alone still
-- changes it. Every other write of a card's place still takes its sets' lock
-- and advances column_sets.version.
ALTER TABLE columns ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
