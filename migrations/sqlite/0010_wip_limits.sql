-- WIP limits (api.md §20): a column may hold at most wip_limit cards (NULL:
-- no limit); a workspace's limits are SOFT (marked on the board) or HARD
-- (refused by the writes that add cards, under the column set's lock).
ALTER TABLE columns ADD COLUMN wip_limit INTEGER CHECK (wip_limit BETWEEN 1 AND 10000);
ALTER TABLE settings ADD COLUMN wip_limits TEXT NOT NULL DEFAULT 'SOFT' CHECK (wip_limits IN ('SOFT', 'HARD'));
