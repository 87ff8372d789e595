-- Flow metrics (api.md §13): each history entry also records the visit it
-- ends, the card's stay in the column it leaves: that column's id
-- (`from_column_id`, null once the column is deleted, as `to_column_id`) and
-- when the card entered it (`from_at`, the previous entry's `moved_at`). Both
-- are null on a card's first entry, which ends no visit. A flow read then
-- finds every visit that ended in its window among the window's entries
-- alone, with no seek for each entry's successor; history stays append-only.
ALTER TABLE history ADD COLUMN from_column_id TEXT REFERENCES columns (id) ON DELETE SET NULL;
ALTER TABLE history ADD COLUMN from_at TEXT;

-- The backfill copies both from the card's previous entry (the entry of
-- seq - 1), so it is exactly as good as that entry's `to_column_id`
-- (migration 0005 says what that one cannot know).
UPDATE history SET from_column_id = p.to_column_id, from_at = p.moved_at
FROM history p WHERE p.card_id = history.card_id AND p.seq = history.seq - 1;

-- Column deletion nulls the ids of its entries through the foreign key. Only
-- entries that name a column are indexed: a card's first entry, and every
-- entry of a column deletion with MOVE (which writes none, its column going in
-- the same transaction), add nothing to the index.
CREATE INDEX history_from_column ON history (from_column_id) WHERE from_column_id IS NOT NULL;
-- The flow read's covering index (see 0006), with the ended visit riding along.
DROP INDEX history_time;
CREATE INDEX history_time ON history (card_id, moved_at, seq, to_column_id, from_column_id, from_at);
