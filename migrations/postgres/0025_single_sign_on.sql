-- Single sign-on with OpenID Connect (api.md §27).
--
-- An identity at an OpenID provider, bound to one account: by the provider's
-- issuer and the subject it names, never by an e-mail address. The address
-- and the time are shown on the account page; the address is copied when the
-- identity is linked and never changed by the provider afterwards.
CREATE TABLE identities (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    email TEXT,
    linked_at TEXT NOT NULL
);
CREATE UNIQUE INDEX identities_subject ON identities (issuer, subject);
CREATE INDEX identities_account ON identities (account_id, linked_at);

-- A sign-in under way at the provider: the SHA-256 of its `state` (the
-- browser's `board_oidc` cookie holds the state itself), the nonce and the
-- PKCE verifier it sent, and what it carries (the path to return to, the
-- SHA-256 of an invitation's code, whether it links). It serves once: the
-- callback deletes it, so two servers cannot both use it.
CREATE TABLE sso_states (
    id TEXT PRIMARY KEY,
    nonce TEXT NOT NULL,
    verifier TEXT NOT NULL,
    return_to TEXT NOT NULL,
    invite_hash TEXT,
    link INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX sso_states_expiry ON sso_states (expires_at);

-- A session opened through the provider keeps the ID token it came with, for
-- the provider's sign-out (`id_token_hint`).
ALTER TABLE tokens ADD COLUMN id_token TEXT;
