-- The outbox of live events (api.md §11): one row per committed change,
-- written in the change's own transaction. `seq` only grows across the
-- installation and is handed out under a lock held until commit, so events
-- commit in seq order and a reader that has seen seq N has seen every event
-- below it: SQLite takes MAX(seq) + 1 under the database write lock (retention
-- never removes the newest event); PostgreSQL moves `event_log.last_seq` on,
-- whose row lock it holds until commit. `pruned_through` is the last seq
-- retention removed: a resume from before it has missed events and gets `reset`.
CREATE TABLE event_log (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_seq BIGINT NOT NULL,
    pruned_through BIGINT NOT NULL
);
INSERT INTO event_log (id, last_seq, pruned_through) VALUES (1, 0, 0);

CREATE TABLE events (
    seq BIGINT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    type TEXT NOT NULL,
    at TEXT NOT NULL,
    -- The event's `data` without `seq` (added when read), as JSON text.
    data TEXT NOT NULL
);
CREATE INDEX events_workspace ON events (workspace_id, seq);
