-- Board schema, SQLite dialect. Kept in step with ../postgres/0001_schema.sql:
-- same tables, columns and index names (checked by tests/schema.rs).
-- Times are fixed-width RFC 3339 UTC text, ids are cuid2 text, flags are INTEGER 0/1.

CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    created_at TEXT NOT NULL
);

CREATE TABLE settings (
    workspace_id TEXT PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    column_scope TEXT NOT NULL DEFAULT 'TENANT' CHECK (column_scope IN ('TENANT', 'PROJECT')),
    column_management INTEGER NOT NULL DEFAULT 1 CHECK (column_management IN (0, 1)),
    allow_cross_project_links INTEGER NOT NULL DEFAULT 0 CHECK (allow_cross_project_links IN (0, 1))
);

CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    created_at TEXT NOT NULL
);
CREATE INDEX projects_workspace ON projects (workspace_id, created_at);

CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX accounts_name ON accounts (name);

CREATE TABLE memberships (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('VIEWER', 'MEMBER', 'ADMIN')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (workspace_id, account_id)
);
CREATE INDEX memberships_account ON memberships (account_id);

-- A token is "<prefix>_<id>_<secret>"; only the SHA-256 of the secret is kept.
CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    secret_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    revoked_at TEXT
);
CREATE INDEX tokens_account ON tokens (account_id);

-- A column set is (workspace, project); project NULL is the tenant set.
-- Its row is the lock that serialises writes to the set's columns and cards.
CREATE TABLE column_sets (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    project_id TEXT REFERENCES projects (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX column_sets_tenant ON column_sets (workspace_id) WHERE project_id IS NULL;
CREATE UNIQUE INDEX column_sets_project ON column_sets (project_id);

CREATE TABLE columns (
    id TEXT PRIMARY KEY,
    set_id TEXT NOT NULL REFERENCES column_sets (id) ON DELETE CASCADE,
    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    accent TEXT NOT NULL CHECK (accent IN ('slate', 'gray', 'red', 'orange', 'amber', 'yellow', 'lime',
        'green', 'emerald', 'teal', 'cyan', 'sky', 'blue', 'indigo', 'violet', 'purple', 'fuchsia',
        'pink', 'rose')),
    position INTEGER NOT NULL,
    done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX columns_position ON columns (set_id, position);
CREATE UNIQUE INDEX columns_done ON columns (set_id) WHERE done = 1;

CREATE TABLE cards (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    project_id TEXT REFERENCES projects (id) ON DELETE CASCADE,
    column_id TEXT NOT NULL REFERENCES columns (id),
    title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 100),
    position INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX cards_column ON cards (column_id, position);
CREATE INDEX cards_workspace ON cards (workspace_id);

-- seq orders a card's entries; names are copies, not references.
CREATE TABLE history (
    id TEXT PRIMARY KEY,
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    from_name TEXT,
    to_name TEXT NOT NULL,
    moved_at TEXT NOT NULL
);
CREATE UNIQUE INDEX history_card ON history (card_id, seq);

CREATE TABLE comments (
    id TEXT PRIMARY KEY,
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    content TEXT NOT NULL,
    author_id TEXT REFERENCES accounts (id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX comments_card ON comments (card_id, seq);

-- A file on disk exists exactly when its row exists (see board-core/src/files.rs).
CREATE TABLE attachments (
    id TEXT PRIMARY KEY,
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    comment_id TEXT REFERENCES comments (id) ON DELETE CASCADE,
    scope TEXT NOT NULL CHECK (scope IN ('CARD', 'COMMENT')),
    stored_name TEXT NOT NULL,
    original_name TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    size INTEGER NOT NULL CHECK (size > 0),
    created_at TEXT NOT NULL,
    CHECK (scope = 'COMMENT' OR comment_id IS NULL)
);
CREATE UNIQUE INDEX attachments_stored_name ON attachments (stored_name);
CREATE INDEX attachments_card ON attachments (card_id, created_at);
CREATE INDEX attachments_comment ON attachments (comment_id);

-- At most one link per unordered card pair, in either direction.
CREATE TABLE relations (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    source_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    target_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('PARENT', 'BLOCKS', 'GENERATED', 'RELATED')),
    created_at TEXT NOT NULL,
    CHECK (source_id <> target_id)
);
CREATE UNIQUE INDEX relations_pair ON relations (min(source_id, target_id), max(source_id, target_id));
CREATE INDEX relations_source ON relations (source_id, kind);
CREATE INDEX relations_target ON relations (target_id, kind);
