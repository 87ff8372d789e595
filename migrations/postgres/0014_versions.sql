-- Conditional requests (api.md §22): every row a write transaction locks
-- (store/tx.rs `Lock`) carries a version that the lock's own statement
-- advances, so a payload guarded by that row gets a new tag with every
-- committed change made under the lock. cards.version counts the writes under
-- a card's lock (comments, attachments); the card's own fields are tagged by
-- their hash. webhooks.version only follows the rule (a webhook's write
-- locks its row); no payload is tagged by it.
ALTER TABLE workspaces ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE settings ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE column_sets ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE cards ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
