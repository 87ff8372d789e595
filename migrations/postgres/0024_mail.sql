-- E-mail (api.md §26): addresses, their verification, preferences, batches.
--
-- An account's address; `email_verified_at` set once a verification code
-- served (or the operator set it `--verified`). Only a verified address gets
-- notifications. `email_key` is the address lower-cased: a password reset
-- asked by address finds its account by it.
ALTER TABLE accounts ADD COLUMN email TEXT;
ALTER TABLE accounts ADD COLUMN email_key TEXT;
ALTER TABLE accounts ADD COLUMN email_verified_at TEXT;
CREATE INDEX accounts_email ON accounts (email_key) WHERE email_key IS NOT NULL;

-- A verification code (hashed, as reset codes are) for the address it was
-- sent to: it verifies that address only, once, within 24 hours.
CREATE TABLE email_verifications (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
);
CREATE UNIQUE INDEX email_verifications_code ON email_verifications (code_hash);
CREATE INDEX email_verifications_account ON email_verifications (account_id);

-- What an account wants by e-mail; no row: the defaults.
CREATE TABLE mail_preferences (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    assigned INTEGER NOT NULL DEFAULT 1 CHECK (assigned IN (0, 1)),
    mentioned INTEGER NOT NULL DEFAULT 1 CHECK (mentioned IN (0, 1)),
    commented INTEGER NOT NULL DEFAULT 0 CHECK (commented IN (0, 1)),
    moved INTEGER NOT NULL DEFAULT 0 CHECK (moved IN (0, 1)),
    due_soon INTEGER NOT NULL DEFAULT 1 CHECK (due_soon IN (0, 1)),
    batch_minutes INTEGER NOT NULL DEFAULT 5 CHECK (batch_minutes BETWEEN 0 AND 1440)
);

-- A recipient's e-mail of one workspace: `open` while it gathers (at most
-- one open per account and workspace), `sending` while a server holds it
-- (until `claimed_until`: a server that died lets it go), `retry` between
-- tries, then `sent`, `skipped` (nothing left to tell) or `failed` (24 h of
-- refusals). `due_at`: when it is sent, or tried again. The notifications
-- it tells name it (`notifications.mail_batch_id`), bound when first claimed.
-- `unsubscribe_hash`: the hash of its message's unsubscribe token, which
-- names the account and `kinds`, the kinds the message told of.
CREATE TABLE mail_batches (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    state TEXT NOT NULL CHECK (state IN ('open', 'sending', 'retry', 'sent', 'skipped', 'failed')),
    opened_at TEXT NOT NULL,
    due_at TEXT NOT NULL,
    claimed_until TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    first_tried_at TEXT,
    recipient TEXT,
    kinds TEXT,
    reply TEXT,
    finished_at TEXT,
    unsubscribe_hash TEXT
);
CREATE UNIQUE INDEX mail_batches_open ON mail_batches (account_id, workspace_id)
    WHERE state = 'open';
CREATE INDEX mail_batches_due ON mail_batches (due_at) WHERE state IN ('open', 'retry', 'sending');
CREATE INDEX mail_batches_finished ON mail_batches (finished_at);
CREATE UNIQUE INDEX mail_batches_unsubscribe ON mail_batches (unsubscribe_hash);

ALTER TABLE notifications ADD COLUMN mail_batch_id TEXT;
CREATE INDEX notifications_batch ON notifications (mail_batch_id);
CREATE INDEX notifications_unmailed ON notifications (account_id, workspace_id, created_at)
    WHERE mail_batch_id IS NULL;

-- A notification to an account with a verified address opens its batch (or
-- joins the open one), in the statement that writes it: the change's own
-- transaction, and no statement more. Due `batch_minutes` after it.
CREATE OR REPLACE FUNCTION notifications_mail() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.mail_batch_id IS NULL AND EXISTS (SELECT 1 FROM accounts a
        WHERE a.id = NEW.account_id AND a.email_verified_at IS NOT NULL) THEN
        INSERT INTO mail_batches (id, account_id, workspace_id, state, opened_at, due_at)
        VALUES ('m' || substr(md5(random()::text || clock_timestamp()::text), 1, 23),
            NEW.account_id, NEW.workspace_id, 'open', NEW.created_at,
            to_char((CAST(NEW.created_at AS timestamptz) + make_interval(mins => COALESCE(
                (SELECT p.batch_minutes FROM mail_preferences p
                 WHERE p.account_id = NEW.account_id), 5))) AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER notifications_mail AFTER INSERT ON notifications
    FOR EACH ROW EXECUTE FUNCTION notifications_mail();
