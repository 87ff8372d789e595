-- A per-card counter of history entries, kept on the card, so that a set-based
-- move (column deletion with MOVE) numbers each card's new entry without a
-- per-card MAX(seq) lookup. history.seq of a card's newest entry = its history_seq.
ALTER TABLE cards ADD COLUMN history_seq BIGINT NOT NULL DEFAULT 0;
UPDATE cards SET history_seq = (SELECT COALESCE(MAX(h.seq), 0) FROM history h WHERE h.card_id = cards.id);
