-- Flow metrics (api.md §13): each card's entries from a moment on, the
-- entry in force at that moment (its latest entry made before it) and each
-- entry's successor in time, each in one seek; the entered column's id rides
-- along, so a flow read touches the table only for a column since deleted.
CREATE INDEX history_time ON history (card_id, moved_at, seq, to_column_id);
