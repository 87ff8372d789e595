-- Archive (contract §19): a card's archived_at is the moment it left the board
-- (NULL: on the board). It keeps its column, position, comments, links and
-- history. The board, the WIP count and the flow's wip and aging leave it out.
ALTER TABLE cards ADD COLUMN archived_at TEXT;

-- The archived list of a workspace: most recently archived first, keyset on
-- (archived_at, id).
CREATE INDEX cards_archived ON cards (workspace_id, archived_at, id) WHERE archived_at IS NOT NULL;

-- Every stay off the board, for the flow's cumulative diagram computed from
-- stored data: archived_at when it began, restored_at when it ended (NULL:
-- still archived). Written by archive and restore, in their transaction; a
-- card's deletion takes its stays with it.
CREATE TABLE card_archives (
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    archived_at TEXT NOT NULL,
    restored_at TEXT,
    PRIMARY KEY (card_id, archived_at)
);
