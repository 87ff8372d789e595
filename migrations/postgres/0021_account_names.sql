-- Account names are unique by their key (docs/decisions.md, "Account names"):
-- the name after NFKC and Unicode case folding, computed by board (neither
-- database folds as Unicode does). Rows made before this migration get their
-- key when a server opens the database; an account whose key another one
-- already holds (two names that differed only in case) keeps a null key and
-- still signs in by its exact name.
ALTER TABLE accounts ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX accounts_name_key ON accounts (name_key);

-- The sign-in throttle's attempts in progress (docs/decisions.md, "The
-- sign-in throttle"): a row is pending while its password is being checked,
-- and becomes a failure (0) when the check fails; a success or a busy hasher
-- deletes it.
ALTER TABLE auth_failures ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
