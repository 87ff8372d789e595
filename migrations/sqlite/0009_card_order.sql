-- Cards in order (api.md §16): a card's position is unique within its
-- column, and positions are spaced 65,536 apart (order.rs: a placement takes
-- the middle of a gap; a used-up gap renumbers a few cards below it). Existing
-- cards keep their order (position, then creation, then id: the board's read
-- order) and take spaced positions, 65,536 · rank.
UPDATE cards SET position = r.n * 65536
FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY column_id ORDER BY position, created_at, id) AS n
      FROM cards) r
WHERE r.id = cards.id;

-- The unique index replaces the plain one on the same columns.
DROP INDEX cards_column;
CREATE UNIQUE INDEX cards_position ON cards (column_id, position);
