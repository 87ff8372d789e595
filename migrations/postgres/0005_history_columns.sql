-- Flow metrics (api.md §13): each history entry also records the column it
-- entered (`to_column_id`, null once that column is deleted) and whether that
-- column was the set's done column at that moment (`to_done`, 0/1). Every new
-- entry fills both; `from_name`/`to_name` stay the copies the history route shows.
ALTER TABLE history ADD COLUMN to_column_id TEXT REFERENCES columns (id) ON DELETE SET NULL;
ALTER TABLE history ADD COLUMN to_done BIGINT CHECK (to_done IN (0, 1));

-- The backfill of existing entries, from what is still known:
-- - the id is the column that still has the entered name in the set of the
--   card's current column, when exactly one does; otherwise null (the column
--   was deleted or renamed since, its name is shared by several columns, or
--   the card has changed sets);
-- - the done flag is that column's flag now (whether it was the done column
--   at the time cannot be known: the done mark may have moved since); null
--   where the column is unknown.
UPDATE history SET to_column_id = (
    SELECT CASE WHEN COUNT(*) = 1 THEN MIN(c.id) END
    FROM cards k
    JOIN columns cur ON cur.id = k.column_id
    JOIN columns c ON c.set_id = cur.set_id AND c.name = history.to_name
    WHERE k.id = history.card_id
);
UPDATE history SET to_done = (SELECT c.done FROM columns c WHERE c.id = history.to_column_id);

-- Column deletion nulls the ids of its entries through the foreign key.
CREATE INDEX history_column ON history (to_column_id);
-- Each card's first arrival in a done column (flow metrics' lead and cycle
-- time, throughput): only the arrivals in a done column are indexed.
CREATE INDEX history_done ON history (card_id, seq) WHERE to_done = 1;
