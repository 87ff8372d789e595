-- People (api.md §23). An account's password, as an Argon2id PHC string
-- (null: the account has none and cannot sign in with one).
ALTER TABLE accounts ADD COLUMN password_hash TEXT;

-- Sessions are tokens of kind 'session', hashed as every token; the CLI's and
-- the scripts' bearer tokens are 'personal'. last_used_at moves at most once
-- a minute.
ALTER TABLE tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'personal'
    CHECK (kind IN ('personal', 'session'));
ALTER TABLE tokens ADD COLUMN label TEXT;
ALTER TABLE tokens ADD COLUMN last_used_at TEXT;

-- Failed sign-ins, wrong current passwords and unknown invitation codes, one
-- row each, kept for the throttle's window (15 minutes): counted per
-- (subject, address), where the subject is the name signed in with ('' for
-- an invitation code), and per address. Rows of several servers meet here.
CREATE TABLE auth_failures (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    subject TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX auth_failures_address ON auth_failures (address, at);
CREATE INDEX auth_failures_pair ON auth_failures (address, subject, at);

-- An invitation's code is shown once; only its SHA-256 is kept. It serves
-- once (used_at), until expires_at, unless revoked.
CREATE TABLE invitations (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('VIEWER', 'MEMBER', 'ADMIN')),
    code_hash TEXT NOT NULL,
    created_by TEXT REFERENCES accounts (id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    revoked_at TEXT
);
CREATE UNIQUE INDEX invitations_code ON invitations (code_hash);
CREATE INDEX invitations_workspace ON invitations (workspace_id, created_at);

-- An operator's one-time password reset link (24 hours), hashed the same way.
CREATE TABLE password_resets (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
);
CREATE UNIQUE INDEX password_resets_code ON password_resets (code_hash);
