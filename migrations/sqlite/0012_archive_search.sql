-- Archive (api.md §19): a card's archived_at is the moment it left the board
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

-- Search (api.md §19): the folded words (search/words.rs: NFD, lower case,
-- marks dropped, split on what is not a letter or digit) of every card title
-- (doc_id = the card's id) and every comment (doc_id = the comment's id), one
-- row per distinct word, written in the transaction of the change. Words
-- compare bytewise on both backends (PostgreSQL: COLLATE "C"; SQLite: BINARY),
-- so the last word of a query is a range on the index. A card's deletion takes
-- its rows (comments' included).
CREATE TABLE search_terms (
    doc_id TEXT NOT NULL,
    word TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    PRIMARY KEY (doc_id, word)
);
CREATE INDEX search_terms_word ON search_terms (workspace_id, word, doc_id, card_id);
CREATE INDEX search_terms_card ON search_terms (card_id);

-- Which folding the index was built with: the folding is Rust code, which a
-- migration cannot run, so board-core indexes the existing cards and comments
-- when it opens a database whose index is older than its folding (search/index.rs).
CREATE TABLE search_state (folding INTEGER NOT NULL);
INSERT INTO search_state (folding) VALUES (0);
