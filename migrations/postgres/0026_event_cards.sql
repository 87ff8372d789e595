-- A card's activity (api.md §29): the events that concern a card, found by
-- an index rather than by reading every event. `card_id` is the card an
-- event is about (a card's own events; its comments', attachments' and
-- checklist items'), and a link's event also names its other card in
-- `other_card_id`. Both are written with the event (`Change`); the events
-- written before this migration get them from their subject where it names
-- the card (a deletion's subject is only `{id}`: those stay without).
ALTER TABLE events ADD COLUMN card_id TEXT;
ALTER TABLE events ADD COLUMN other_card_id TEXT;
UPDATE events SET
    card_id = CASE
        WHEN type LIKE 'card.%' THEN (data::json -> 'subject' ->> 'id')
        WHEN type LIKE 'comment.%' OR type LIKE 'checklist.%'
            THEN (data::json -> 'subject' ->> 'cardId')
        WHEN type = 'relation.created' THEN (data::json -> 'subject' ->> 'sourceId')
    END,
    other_card_id = CASE
        WHEN type = 'relation.created' THEN (data::json -> 'subject' ->> 'targetId')
    END
WHERE account_id IS NULL;
CREATE INDEX events_card ON events (card_id, seq) WHERE card_id IS NOT NULL;
CREATE INDEX events_other_card ON events (other_card_id, seq) WHERE other_card_id IS NOT NULL;
