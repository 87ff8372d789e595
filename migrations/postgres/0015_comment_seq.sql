-- PostgreSQL: a new comment's seq comes from a sequence, taken with no lock,
-- so that writers adding comments to one card no longer queue on the card's
-- row lock held through their COMMIT (and its WAL flush): a plain comment
-- takes no lock at all (its card's foreign key guards it: board-core
-- `Board::write_at_commit`), and their commits share flushes.
-- A comment's seq still orders it after every comment of its card: the
-- sequence continues after every seq written, and a copy moves it on
-- (`continue_event_seqs`). The comments' tag is the card's version and the
-- number of its comments (cards.rs `CardList::Comments`): between two writes
-- under the card's exclusive lock, comments are only added.
CREATE SEQUENCE comments_seq;
SELECT setval('comments_seq', (SELECT COALESCE(MAX(seq), 0) FROM comments) + 1, false);
