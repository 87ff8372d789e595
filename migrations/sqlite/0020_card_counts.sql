-- The counts a card shows (its comments, its attachments and its comments'
-- images, its checklist items done and in all) are kept as the changes
-- happen, not counted on every read: a card carrying thousands of comments
-- reads as fast as one with none (docs/decisions.md, "Counts kept").
--
-- They live in a table of their own, keyed by card and lane, kept by
-- triggers: the statement that inserts, deletes or changes a comment, an
-- attachment or a checklist item updates them, whichever path it comes from
-- (a route, a cascade, an import, a copy). A card's count is the sum of its
-- lanes. SQLite has one writer at a time and one lane (0); PostgreSQL adds
-- lanes as writers race on a card, so that comments racing onto one card do
-- not queue on one row through their commits (migrations/postgres/0020_card_counts.sql).
-- A lane may go negative; the sum may not. A card keeps its card_id forever,
-- and so do its comments, attachments and checklist items.
CREATE TABLE card_counts (
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    lane INTEGER NOT NULL,
    comments INTEGER NOT NULL DEFAULT 0,
    attachments INTEGER NOT NULL DEFAULT 0,
    items INTEGER NOT NULL DEFAULT 0,
    items_done INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (card_id, lane)
);

INSERT INTO card_counts (card_id, lane, comments, attachments, items, items_done)
SELECT k.id, 0,
       (SELECT COUNT(*) FROM comments c WHERE c.card_id = k.id),
       (SELECT COUNT(*) FROM attachments f WHERE f.card_id = k.id
           AND (f.scope = 'CARD' OR f.comment_id IS NOT NULL)),
       (SELECT COUNT(*) FROM checklist_items i WHERE i.card_id = k.id),
       (SELECT COALESCE(SUM(i.done), 0) FROM checklist_items i WHERE i.card_id = k.id)
FROM cards k;

-- What is added goes into lane 0, made when missing; what is taken away
-- updates lane 0, which then exists (what it takes away was added there, or
-- filled above). A card's deletion takes its lanes first or after: an UPDATE
-- of a lane gone touches nothing, where an INSERT would fail its key.
CREATE TRIGGER comments_counted AFTER INSERT ON comments BEGIN
    INSERT INTO card_counts (card_id, lane, comments) VALUES (NEW.card_id, 0, 1)
    ON CONFLICT (card_id, lane) DO UPDATE SET comments = comments + 1;
END;

CREATE TRIGGER comments_uncounted AFTER DELETE ON comments BEGIN
    UPDATE card_counts SET comments = comments - 1 WHERE card_id = OLD.card_id AND lane = 0;
END;

-- An attachment counts when it is the card's own or a comment's image; a
-- loose comment upload counts once a comment binds it.
CREATE TRIGGER attachments_counted AFTER INSERT ON attachments
WHEN NEW.scope = 'CARD' OR NEW.comment_id IS NOT NULL BEGIN
    INSERT INTO card_counts (card_id, lane, attachments) VALUES (NEW.card_id, 0, 1)
    ON CONFLICT (card_id, lane) DO UPDATE SET attachments = attachments + 1;
END;

CREATE TRIGGER attachments_uncounted AFTER DELETE ON attachments
WHEN OLD.scope = 'CARD' OR OLD.comment_id IS NOT NULL BEGIN
    UPDATE card_counts SET attachments = attachments - 1
    WHERE card_id = OLD.card_id AND lane = 0;
END;

CREATE TRIGGER attachments_bound AFTER UPDATE OF scope, comment_id ON attachments
WHEN (NEW.scope = 'CARD' OR NEW.comment_id IS NOT NULL)
     <> (OLD.scope = 'CARD' OR OLD.comment_id IS NOT NULL) BEGIN
    INSERT INTO card_counts (card_id, lane, attachments) VALUES (NEW.card_id, 0, 1)
    ON CONFLICT (card_id, lane) DO UPDATE SET attachments = attachments
        + CASE WHEN NEW.scope = 'CARD' OR NEW.comment_id IS NOT NULL THEN 1 ELSE -1 END;
END;

CREATE TRIGGER checklist_counted AFTER INSERT ON checklist_items BEGIN
    INSERT INTO card_counts (card_id, lane, items, items_done)
    VALUES (NEW.card_id, 0, 1, NEW.done)
    ON CONFLICT (card_id, lane) DO UPDATE SET items = items + 1,
        items_done = items_done + excluded.items_done;
END;

CREATE TRIGGER checklist_uncounted AFTER DELETE ON checklist_items BEGIN
    UPDATE card_counts SET items = items - 1, items_done = items_done - OLD.done
    WHERE card_id = OLD.card_id AND lane = 0;
END;

CREATE TRIGGER checklist_checked AFTER UPDATE OF done ON checklist_items
WHEN NEW.done <> OLD.done BEGIN
    UPDATE card_counts SET items_done = items_done + NEW.done - OLD.done
    WHERE card_id = NEW.card_id AND lane = 0;
END;
