-- The search index (0012) without its card's foreign key and the index on
-- card_id that served it (issue 32). Every comment wrote one row per word, and
-- each row's foreign-key check locked the card row again (FOR KEY SHARE, a
-- multixact when many writers comment on one card) and kept a third B-tree:
-- about a fifth of PostgreSQL's time in a comment POST. The comment's own
-- foreign key keeps its card until the commit; a card's deletion (and a
-- column's, with DELETE) removes its documents' rows itself, by doc_id, after
-- locking the cards (board-core: search/index.rs, forget_cards). A row whose
-- card is gone is never answered anyway: a search joins `cards`.
ALTER TABLE search_terms DROP CONSTRAINT search_terms_card_id_fkey;
DROP INDEX search_terms_card;
