-- Who did what (api.md §17): the account behind a history entry, a card, a
-- link and a file. NULL when the CLI did it, and for every row written before
-- this migration. An account's removal leaves the rows, with NULL.
ALTER TABLE history ADD COLUMN actor_id TEXT REFERENCES accounts (id) ON DELETE SET NULL;
ALTER TABLE cards ADD COLUMN created_by TEXT REFERENCES accounts (id) ON DELETE SET NULL;
ALTER TABLE relations ADD COLUMN created_by TEXT REFERENCES accounts (id) ON DELETE SET NULL;
ALTER TABLE attachments ADD COLUMN uploaded_by TEXT REFERENCES accounts (id) ON DELETE SET NULL;
