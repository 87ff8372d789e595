-- Cards in full (api.md §24). A card's description (Markdown, stored byte
-- for byte) and due time; the workspace's labels, in order; a card's labels
-- and assignees, one row each, so that two people labelling at once each add
-- their own row; and its checklist, placed as cards are (order.rs).
-- A card's label ids, assignee ids and counts are not stored on it: every
-- read of a card computes them (cards/fields.rs), so no write of a comment,
-- an attachment or an item touches the card's row for them.
ALTER TABLE cards ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE cards ADD COLUMN due_at TEXT;

-- name_key is the name folded to lower case (Rust's Unicode folding, the same
-- on both backends): names are unique in the workspace ignoring case.
CREATE TABLE labels (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    name_key TEXT NOT NULL,
    accent TEXT NOT NULL,
    position INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX labels_name ON labels (workspace_id, name_key);
CREATE INDEX labels_position ON labels (workspace_id, position);

CREATE TABLE card_labels (
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    label_id TEXT NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
    PRIMARY KEY (card_id, label_id)
);
CREATE INDEX card_labels_label ON card_labels (label_id);

-- assigned_at orders a card's assignees (then the account's id). An
-- assignee is a member of the card's workspace: the row references the
-- membership, so removing the member unassigns it from every card of the
-- workspace in the same statement, and an assignment racing the removal
-- either commits first (and goes with it) or fails its key.
CREATE TABLE card_assignees (
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    assigned_at TEXT NOT NULL,
    PRIMARY KEY (card_id, account_id),
    FOREIGN KEY (workspace_id, account_id)
        REFERENCES memberships (workspace_id, account_id) ON DELETE CASCADE
);
CREATE INDEX card_assignees_account ON card_assignees (account_id);

CREATE TABLE checklist_items (
    id TEXT PRIMARY KEY,
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    text TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 1000),
    done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
    position INTEGER NOT NULL,
    done_by TEXT REFERENCES accounts (id) ON DELETE SET NULL,
    done_at TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX checklist_items_position ON checklist_items (card_id, position);
