-- The counts a card shows (its comments, its attachments and its comments'
-- images, its checklist items done and in all) are kept as the changes
-- happen, not counted on every read: a card carrying thousands of comments
-- reads as fast as one with none (docs/decisions.md, "Counts kept").
--
-- They live in a table of their own, keyed by card and lane, kept by
-- triggers: the statement that inserts, deletes or changes a comment, an
-- attachment or a checklist item updates them, whichever path it comes from
-- (a route, a cascade, an import, a copy). A card's count is the sum of its
-- lanes. A writer adds to the first lane no other writer holds
-- (card_counts_add): comments racing onto one card take no common row lock
-- (a plain comment takes no lock at all, 0015), so their commits still share WAL
-- flushes; one row per card would make them queue through each commit. A
-- lane may go negative; the sum may not. A card keeps its card_id forever,
-- and so do its comments, attachments and checklist items.
CREATE TABLE card_counts (
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    lane BIGINT NOT NULL,
    comments BIGINT NOT NULL DEFAULT 0,
    attachments BIGINT NOT NULL DEFAULT 0,
    items BIGINT NOT NULL DEFAULT 0,
    items_done BIGINT NOT NULL DEFAULT 0,
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

-- Adds to a card's counts: in its first lane no other writer holds (lane 0
-- unless writers race on the card), or, when every lane is held, in this
-- connection's spare lane (1 + its backend's pid modulo 16), made when
-- missing, unless the card is gone (a deletion in this transaction whose
-- cascade takes its comments: its lanes go with it). So a card has one lane
-- until writers race on it, and at most 17.
CREATE FUNCTION card_counts_add(card TEXT, d_comments BIGINT, d_attachments BIGINT,
                                d_items BIGINT, d_done BIGINT) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE card_counts SET comments = comments + d_comments,
        attachments = attachments + d_attachments, items = items + d_items,
        items_done = items_done + d_done
    WHERE card_id = card AND lane = (SELECT f.lane FROM card_counts f WHERE f.card_id = card
                                     ORDER BY f.lane LIMIT 1 FOR UPDATE SKIP LOCKED);
    IF NOT FOUND THEN
        INSERT INTO card_counts (card_id, lane, comments, attachments, items, items_done)
        SELECT card, 1 + pg_backend_pid() % 16, d_comments, d_attachments, d_items, d_done
        WHERE EXISTS (SELECT 1 FROM cards WHERE id = card)
        ON CONFLICT (card_id, lane) DO UPDATE SET
            comments = card_counts.comments + EXCLUDED.comments,
            attachments = card_counts.attachments + EXCLUDED.attachments,
            items = card_counts.items + EXCLUDED.items,
            items_done = card_counts.items_done + EXCLUDED.items_done;
    END IF;
END $$;

CREATE FUNCTION comments_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM card_counts_add(NEW.card_id, 1, 0, 0, 0);
    ELSE
        PERFORM card_counts_add(OLD.card_id, -1, 0, 0, 0);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER comments_counted AFTER INSERT OR DELETE ON comments
FOR EACH ROW EXECUTE FUNCTION comments_count();

-- An attachment counts when it is the card's own or a comment's image; a
-- loose comment upload counts once a comment binds it.
CREATE FUNCTION attachments_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM card_counts_add(NEW.card_id, 0, 1, 0, 0);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM card_counts_add(OLD.card_id, 0, -1, 0, 0);
    ELSIF NEW.scope = 'CARD' OR NEW.comment_id IS NOT NULL THEN
        PERFORM card_counts_add(NEW.card_id, 0, 1, 0, 0);
    ELSE
        PERFORM card_counts_add(NEW.card_id, 0, -1, 0, 0);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER attachments_counted AFTER INSERT ON attachments
FOR EACH ROW WHEN (NEW.scope = 'CARD' OR NEW.comment_id IS NOT NULL)
EXECUTE FUNCTION attachments_count();

CREATE TRIGGER attachments_uncounted AFTER DELETE ON attachments
FOR EACH ROW WHEN (OLD.scope = 'CARD' OR OLD.comment_id IS NOT NULL)
EXECUTE FUNCTION attachments_count();

CREATE TRIGGER attachments_bound AFTER UPDATE OF scope, comment_id ON attachments
FOR EACH ROW WHEN ((NEW.scope = 'CARD' OR NEW.comment_id IS NOT NULL)
                   <> (OLD.scope = 'CARD' OR OLD.comment_id IS NOT NULL))
EXECUTE FUNCTION attachments_count();

CREATE FUNCTION checklist_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM card_counts_add(NEW.card_id, 0, 0, 1, NEW.done);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM card_counts_add(OLD.card_id, 0, 0, -1, -OLD.done);
    ELSE
        PERFORM card_counts_add(NEW.card_id, 0, 0, 0, NEW.done - OLD.done);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER checklist_counted AFTER INSERT OR DELETE ON checklist_items
FOR EACH ROW EXECUTE FUNCTION checklist_count();

CREATE TRIGGER checklist_checked AFTER UPDATE OF done ON checklist_items
FOR EACH ROW WHEN (NEW.done <> OLD.done) EXECUTE FUNCTION checklist_count();
