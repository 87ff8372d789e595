-- The same with the words kept per card (one row per word of a card, ON CONFLICT DO NOTHING): a word the card already has writes nothing (issue 32, ninth session)
\set n random(1, 9000000000000000000)
BEGIN;
INSERT INTO comments (id, card_id, seq, content, author_id, created_at, updated_at) VALUES ('pc' || :n || '-' || :client_id, :card, GREATEST(nextval('comments_seq'), (SELECT COALESCE(MAX(seq), 0) + 1 FROM comments WHERE card_id = :card)), 'A comment with **Markdown** and some text to store.', NULL, '2026-11-27T10:00:00.000000Z', '2026-11-27T10:00:00.000000Z');
INSERT INTO card_words (card_id, word, workspace_id) VALUES (:card, 'a', :ws), (:card, 'and', :ws), (:card, 'comment', :ws), (:card, 'markdown', :ws), (:card, 'some', :ws), (:card, 'store', :ws), (:card, 'text', :ws), (:card, 'to', :ws), (:card, 'with', :ws) ON CONFLICT DO NOTHING;
SELECT pg_current_xact_id() IS NOT NULL;
INSERT INTO events (seq, workspace_id, type, at, data) VALUES (nextval('events_seq'), :ws, 'comment.created', '2026-11-27T10:00:00.000000Z', '{"comment":{"content":"A comment with **Markdown** and some text to store."}}');
COMMIT;
