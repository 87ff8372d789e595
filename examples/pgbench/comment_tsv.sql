-- The same with the nine search rows replaced by one row per document: its words as a tsvector under a GIN index (BENCHMARKS.md, pgbench)
\set n random(1, 9000000000000000000)
BEGIN;
INSERT INTO comments (id, card_id, seq, content, author_id, created_at, updated_at) VALUES ('pc' || :n || '-' || :client_id, :card, GREATEST(nextval('comments_seq'), (SELECT COALESCE(MAX(seq), 0) + 1 FROM comments WHERE card_id = :card)), 'A comment with **Markdown** and some text to store.', NULL, '2026-11-27T10:00:00.000000Z', '2026-11-27T10:00:00.000000Z');
INSERT INTO search_docs (doc_id, workspace_id, card_id, words) VALUES ('pc' || :n || '-' || :client_id, :ws, :card, array_to_tsvector(ARRAY['a', 'and', 'comment', 'markdown', 'some', 'store', 'text', 'to', 'with']));
SELECT pg_current_xact_id() IS NOT NULL;
INSERT INTO events (seq, workspace_id, type, at, data) VALUES (nextval('events_seq'), :ws, 'comment.created', '2026-11-27T10:00:00.000000Z', '{"comment":{"content":"A comment with **Markdown** and some text to store."}}');
COMMIT;
