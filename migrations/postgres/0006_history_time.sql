-- Flow metrics (contract §13): each card's entries from a moment on, and its
-- entry in force at that moment (its latest entry made before it), each in one
-- seek, without reading the rows for the second.
CREATE INDEX history_time ON history (card_id, moved_at, seq);
