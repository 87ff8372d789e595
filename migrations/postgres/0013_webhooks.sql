-- Webhooks (api.md §18): a workspace's subscriptions of a URL to its events,
-- each with its delivery position (`position`: the last seq delivered or
-- passed over by its filter, advanced only after a 2xx), its status, and the
-- lease (`lease_holder`, `lease_until`) that lets one server at a time deliver
-- to it. `events` is the JSON array of the event types it takes. The secret is
-- stored as given: every delivery is signed with it.
CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret TEXT NOT NULL,
    active BIGINT NOT NULL CHECK (active IN (0, 1)),
    created_at TEXT NOT NULL,
    position BIGINT NOT NULL,
    last_attempt_at TEXT,
    last_status BIGINT,
    last_error TEXT,
    failing_since TEXT,
    lease_holder TEXT,
    lease_until TEXT
);
CREATE INDEX webhooks_workspace ON webhooks (workspace_id, created_at);

-- The attempts of a webhook (the last 100 are kept), newest by `at`.
CREATE TABLE webhook_deliveries (
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    at TEXT NOT NULL,
    seq BIGINT NOT NULL,
    type TEXT NOT NULL,
    attempt BIGINT NOT NULL,
    status BIGINT,
    error TEXT,
    duration_ms BIGINT NOT NULL,
    PRIMARY KEY (webhook_id, at)
);
