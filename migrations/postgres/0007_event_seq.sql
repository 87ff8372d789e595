-- PostgreSQL: event seqs come from a sequence, taken by each write as it
-- commits, with no lock: writers on different rows no longer queue on one
-- outbox lock held through their COMMIT (and its WAL flush). A seq taken is
-- not yet visible, so a smaller seq may commit after a larger one; readers
-- read only up to a seq below which every writer has finished (the horizon,
-- see board-core/src/events/horizon.rs). `event_log.last_seq` is no longer
-- used. The sequence continues after every seq written or pruned.
CREATE SEQUENCE events_seq;
SELECT setval('events_seq',
    GREATEST((SELECT COALESCE(MAX(seq), 0) FROM events),
             (SELECT pruned_through FROM event_log WHERE id = 1),
             (SELECT last_seq FROM event_log WHERE id = 1)) + 1,
    false);
