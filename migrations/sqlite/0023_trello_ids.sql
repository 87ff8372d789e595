-- The Trello ids an import from Trello remembered (api.md §28), per column
-- set: a list, card, label, comment or checklist item of a Trello export, and
-- the row it became here (`local_id`; no foreign key, as it names rows of
-- several tables, and a row deleted since is still remembered, so that a
-- later import of the same board does not bring it back).
CREATE TABLE trello_ids (
    set_id TEXT NOT NULL REFERENCES column_sets (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('list', 'card', 'label', 'comment', 'item')),
    trello_id TEXT NOT NULL,
    local_id TEXT NOT NULL,
    PRIMARY KEY (set_id, kind, trello_id)
);
