-- Finer locks for moves (issue 32): a card moved to the end of another column
-- locks that column's row here (its sets shared) instead of the whole set,
-- and advances its version in the lock's statement (an upsert: a column's row
-- appears with its first such move). The tag of a board (api.md §22) adds
-- the sum of its columns' versions to the set's and the settings' versions.
-- A table of its own, not a column of `columns`: cards and history reference
-- `columns`, and PostgreSQL's foreign-key checks (FOR KEY SHARE) follow the
-- update chain of a row that a version bump keeps updating, waiting on its
-- writers; moves into different columns then deadlocked on each other's rows.
-- Nothing references this table.
CREATE TABLE column_versions (
    column_id TEXT PRIMARY KEY REFERENCES columns(id) ON DELETE CASCADE,
    version BIGINT NOT NULL DEFAULT 0
);
