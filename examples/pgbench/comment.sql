-- A comment POST's database work: its statements as the server's commit sends them, prepared (BENCHMARKS.md, pgbench)
\set n random(1, 9000000000000000000)
BEGIN;
INSERT INTO comments (id, card_id, seq, content, author_id, created_at, updated_at) VALUES ('pc' || :n || '-' || :client_id, :card, GREATEST(nextval('comments_seq'), (SELECT COALESCE(MAX(seq), 0) + 1 FROM comments WHERE card_id = :card)), 'A comment with **Markdown** and some text to store.', NULL, '2026-11-27T10:00:00.000000Z', '2026-11-27T10:00:00.000000Z');
INSERT INTO search_terms (doc_id, word, workspace_id, card_id) VALUES ('pc' || :n || '-' || :client_id, 'a', :ws, :card), ('pc' || :n || '-' || :client_id, 'and', :ws, :card), ('pc' || :n || '-' || :client_id, 'comment', :ws, :card), ('pc' || :n || '-' || :client_id, 'markdown', :ws, :card), ('pc' || :n || '-' || :client_id, 'some', :ws, :card), ('pc' || :n || '-' || :client_id, 'store', :ws, :card), ('pc' || :n || '-' || :client_id, 'text', :ws, :card), ('pc' || :n || '-' || :client_id, 'to', :ws, :card), ('pc' || :n || '-' || :client_id, 'with', :ws, :card);
SELECT pg_current_xact_id() IS NOT NULL;
INSERT INTO events (seq, workspace_id, type, at, data) VALUES (nextval('events_seq'), :ws, 'comment.created', '2026-11-27T10:00:00.000000Z', '{"comment":{"content":"A comment with **Markdown** and some text to store."}}');
COMMIT;
