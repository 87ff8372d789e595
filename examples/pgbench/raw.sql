-- latency's raw single-row commit (BENCHMARKS.md, pgbench)
\set n random(1, 9000000000000000000)
BEGIN;
INSERT INTO bench_raw (id, body) VALUES ('r' || :n || '-' || :client_id, 'A comment with **Markdown** and some text to store.');
COMMIT;
