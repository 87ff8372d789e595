-- Notifications (api.md §26).
--
-- An account's own choice about a card: watching = 1 follows it, 0 stops
-- following it although it created, was assigned to or commented on it.
-- Who watches a card is computed from these rows and the card's own (its
-- creator, its assignees, its comments' authors): nothing to keep in step.
CREATE TABLE card_watches (
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    watching INTEGER NOT NULL CHECK (watching IN (0, 1)),
    chosen_at TEXT NOT NULL,
    PRIMARY KEY (card_id, account_id)
);
CREATE INDEX card_watches_account ON card_watches (account_id);

-- One row per (account, change): `change_key` names the change that made it
-- (a fresh id per write; for `due_soon` the sweep's key and the card), so the unique
-- index is the backstop of "at most one notification per account and
-- change". `mailed_at` is for the e-mail step (a batch picks up the rows
-- without one); nothing writes it yet.
CREATE TABLE notifications (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('assigned', 'mentioned', 'commented', 'moved', 'due_soon')),
    change_key TEXT NOT NULL,
    actor_id TEXT REFERENCES accounts (id) ON DELETE SET NULL,
    excerpt TEXT,
    created_at TEXT NOT NULL,
    read_at TEXT,
    mailed_at TEXT
);
CREATE UNIQUE INDEX notifications_change ON notifications (change_key, account_id);
CREATE INDEX notifications_inbox ON notifications (account_id, created_at, id);
CREATE INDEX notifications_unread ON notifications (account_id) WHERE read_at IS NULL;
CREATE INDEX notifications_age ON notifications (created_at);
CREATE INDEX notifications_card ON notifications (card_id);

-- The due reminder sent for a card's current `due_at` (api.md §26): a card
-- whose `due_at` differs from its row's (or that has none) is armed again.
-- A change of `due_at` deletes the row, so a date set back to an earlier
-- value reminds again too.
CREATE TABLE due_reminders (
    card_id TEXT PRIMARY KEY REFERENCES cards (id) ON DELETE CASCADE,
    due_at TEXT NOT NULL,
    sent_key TEXT NOT NULL
);
CREATE INDEX due_reminders_sent ON due_reminders (sent_key);
CREATE INDEX cards_due ON cards (due_at) WHERE due_at IS NOT NULL;

-- A private event (`notification.created`) goes to its account's streams
-- only; null for the events of a workspace, which its streams and webhooks
-- read.
ALTER TABLE events ADD COLUMN account_id TEXT;
CREATE INDEX events_account ON events (account_id, seq) WHERE account_id IS NOT NULL;

-- Who commented on a card, kept as comments are added (a card's commenters
-- watch it): a move or a comment finds a card's watchers without reading
-- its comments, however many it has (docs/decisions.md, "Counts kept").
-- Someone whose comments were all deleted still commented: they stay.
CREATE TABLE card_commenters (
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    PRIMARY KEY (card_id, account_id)
) WITHOUT ROWID;

INSERT INTO card_commenters (card_id, account_id)
SELECT DISTINCT card_id, author_id FROM comments WHERE author_id IS NOT NULL;

CREATE TRIGGER comments_commenter AFTER INSERT ON comments
WHEN NEW.author_id IS NOT NULL BEGIN
    INSERT OR IGNORE INTO card_commenters (card_id, account_id)
    VALUES (NEW.card_id, NEW.author_id);
END;
