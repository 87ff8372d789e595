-- The search index (0012) without its card's foreign key and the index on
-- card_id that served it (issue 32). Every comment wrote one row per word, and
-- each row's foreign-key check read the card again and kept a third B-tree.
-- The comment's own foreign key keeps its card until the commit; a card's
-- deletion (and a column's, with DELETE) removes its documents' rows itself,
-- by doc_id (board-core: search/index.rs, forget_cards). A row whose card is
-- gone is never answered anyway: a search joins `cards`. SQLite cannot drop a
-- foreign key: the table is built again, its rows copied.
CREATE TABLE search_terms_new (
    doc_id TEXT NOT NULL,
    word TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    card_id TEXT NOT NULL,
    PRIMARY KEY (doc_id, word)
);
INSERT INTO search_terms_new (doc_id, word, workspace_id, card_id)
    SELECT doc_id, word, workspace_id, card_id FROM search_terms ORDER BY doc_id, word;
DROP TABLE search_terms;
ALTER TABLE search_terms_new RENAME TO search_terms;
CREATE INDEX search_terms_word ON search_terms (workspace_id, word, doc_id, card_id);
