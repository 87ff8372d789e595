//! The writes of a card's place: creation, rename, move, placement and
//! deletion, each under its sets' lock or its target column's, with the
//! reads they decide from.
//!
//! **Which lock.** `write_card` takes the card's current set and its set in effect, in id
//! order (`Lock::ColumnSets`), and re-reads the card under them; it locks again if the card
//! moved to a set not held meanwhile (placements, archive, restore). `open_card` with `to_end`
//! (a move to a column's end, or a rename in it) takes only that column:
//! `Lock::ColumnIn`, the sets' gate shared (`Backend::set_gate_sql`), the target column kept
//! `FOR KEY SHARE`, then its row of `column_versions`, advanced by an upsert; the card is
//! re-read `FOR NO KEY UPDATE`, reading its column by sub-selects so that PostgreSQL's re-check
//! after a wait sees the row's new column. Writers of a column's order or structure take the
//! gate exclusive and wait for these moves, and they for them. The column the card leaves is
//! not locked: every write that decides from a column's cards other than such a move
//! (placements and anchors, renumbering, deletions, archive) holds the sets' lock, and these
//! moves only add below their own target's end.
//!
//! On PostgreSQL the column's row is taken only in the commit's round trip (`Lock::ColumnGate`,
//! then the deferred [`column_version_bump`](crate::store::column_version_bump) and an
//! `UPDATE` that computes the end as of that lock and answers it, read by
//! `WriteTx::commit_reading`), so moves into one column queue only through each other's
//! commit. Their event's `data` holds `PENDING_POSITION` until the outbox statement of that
//! round trip writes the position taken. A target with a hard WIP limit (its count is read
//! under the column's lock), or the card's own column (a rename there advances its version),
//! takes the column's lock at once instead, with the card read again (`WriteTx::send`). SQLite
//! keeps `Lock::ColumnIn`: its one write lock is held from `BEGIN IMMEDIATE` anyway. The
//! version is a table of its own, which nothing references: kept in `columns`, moves into
//! different columns deadlocked on PostgreSQL through the foreign-key checks of their history
//! and card rows.
//!
//! `delete_card` also takes `Lock::CardDeleted`, as the deletion takes the row (PostgreSQL
//! `FOR UPDATE`): comments in flight commit first, later ones fail their key, and the
//! deletion sees every comment whose words it must remove.

use sqlx::any::AnyRow;
use sqlx::{FromRow, Row};

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::change::Change;
use crate::error::{Error, Result, Rule};
use crate::etag::{ETag, IfMatch, Saved};
use crate::history;
use crate::ids::{AccountId, CardId, ColumnId, ColumnSetId, WorkspaceId};
use crate::markdown::ThreadQuery;
use crate::notifications::{due, Notice, OTHERS_WATCH_SQL};
use crate::order::{self, Repositioned, Spot, SPACING};
use crate::search::index;
use crate::store::{self, Deferred, Lock, WriteTx};
use crate::text::Name;
use crate::time::{now, Timestamp};
use crate::validate::Input;
use crate::wip::{self, Room};

use super::{
    check_reach, inputs, marks, Card, CardPatch, CardView, NewCard, CARD_COLUMNS, CARD_TAG,
    RETURNED,
};

/// A move to the end of another column, deferred to the commit: the card
/// `$1` into column `$2` at position `$5` (read under that column's lock), at
/// `$3`, titled `$4`, one more history entry.
pub(crate) const MOVE_TO_END_SQL: &str =
    "UPDATE cards SET column_id = $2, updated_at = $3, title = $4, \
     history_seq = history_seq + 1, position = CAST($5 AS BIGINT) WHERE id = $1";

/// A move to the end of another column that takes its place in the commit's
/// round trip ([`Lock::ColumnGate`]), after the column's lock
/// ([`store::column_version_bump`]): the card `$1` into column `$2` at its
/// end as of that lock, at `$3`, titled `$4`, one more history entry;
/// answers the position taken.
pub(crate) fn move_at_commit_sql() -> String {
    format!(
        "UPDATE cards SET column_id = $2, updated_at = $3, title = $4, \
         history_seq = history_seq + 1, \
         position = (SELECT COALESCE(MAX(e.position), 0) + {SPACING} FROM cards e \
                     WHERE e.column_id = $2) \
         WHERE id = $1 RETURNING position AS {MOVED_POSITION}"
    )
}

/// Replaces the words of `card`'s description in the search index, with the commit.
fn index_description(tx: &mut WriteTx, card: &Card) {
    let doc = index::description_id(&card.id);
    let text = &card.description;
    let ws = &card.workspace_id;
    index::defer_write(tx, index::description(&doc, &card.id, ws, text), true);
}

/// Sets a card's plain inputs where `changes` gives them (`cards/inputs.rs`;
/// a due time of `Some(None)` clears it), and `updated_at`, in one statement;
/// returns the card.
async fn update_fields(
    tx: &mut WriteTx,
    id: &CardId,
    changes: &CardPatch,
    at: &Timestamp,
) -> Result<Card> {
    let sql = format!(
        "UPDATE cards SET updated_at = $2, {} WHERE id = $1 RETURNING {RETURNED}",
        inputs::updated(3)
    );
    let query = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).bind(at);
    Ok(inputs::bind_patch(query, changes)
        .fetch_one(&mut **tx)
        .await?)
}

/// What a new description or due time of `card` (as it is now; `before`
/// the description it replaced) causes besides its row, with the commit:
/// the names the description adds hear of it (api.md §26); a new due time
/// arms its reminder again.
fn fields_changed(tx: &mut WriteTx, actor: &Actor, before: &str, card: &Card, due_changed: bool) {
    if card.description != before {
        Notice::new(
            &card.workspace_id,
            &card.id,
            actor.account(),
            card.updated_at.clone(),
        )
        .excerpt(&card.description)
        .mentions(&card.description, Some(before))
        .defer(tx);
    }
    if due_changed {
        tx.defer(due::rearm(&card.id));
    }
}

/// The column of the position [`move_at_commit_sql`] answers.
const MOVED_POSITION: &str = "moved_position";

/// Cards: create, rename, move, place, delete: the operations of `cards/write.rs`.
impl Board {
    /// Creates a card at the end of its column, or at its placement (Member), and writes its first
    /// history entry (`fromName` null) in the same transaction. The body is
    /// checked before access, as its workspace comes from the body.
    pub async fn create_card(
        &self,
        actor: &Actor,
        input: impl Into<Input<NewCard>>,
    ) -> Result<Card> {
        let new = input.into().open()?;
        let ws = &new.workspace_id;
        self.require(&self.pool, actor, ws, Role::Member).await?;
        let project = new.project_id.as_ref().map(AsRef::as_ref);
        // A set is never deleted, so the set in effect can be chosen before
        // its lock; its columns are read under it.
        let set = self
            .set_in_effect(&self.pool, ws, project, "projectId")
            .await?;
        // The target column is read with the lock, in its round trip.
        let read = column_read(new.column_id.as_ref(), &set);
        let lock = Lock::ColumnSet(&set);
        let (mut tx, _, rows) = self.write_reading(lock, Some(&read)).await?;
        let named = new.column_id.is_some();
        let (column, column_name, room) = new_card_target(rows.into_iter().next(), named)?;
        room.admit(&column_name, 1)?;
        let at = now();
        let id = CardId::new();
        let spot = match &new.placement {
            Some(p) => Some(order::place(&mut tx, &column, &id, None, p).await?),
            None => None,
        };
        let position = spot.as_ref().and_then(|s| s.position);
        // The card and its history counter at 1, then entry 1 (one statement each).
        let (inputs, values) = inputs::inserted(8);
        let sql = format!(
            "INSERT INTO cards (id, workspace_id, project_id, column_id, position, created_at, \
                                updated_at, history_seq, created_by, {inputs}) \
             SELECT $1, $2, $3, $4, COALESCE($6, COALESCE(MAX(position), 0) + {SPACING}), \
                    $5, $5, 1, $7, {values} \
             FROM cards WHERE column_id = $4 RETURNING {RETURNED}"
        );
        let query = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(&id)
            .bind(ws)
            .bind(&new.project_id)
            .bind(&column)
            .bind(&at)
            .bind(position)
            .bind(actor.account());
        let mut card: Card = inputs::bind_new(query, &new)
            .fetch_one(&mut *tx)
            .await
            .map_err(order::position_taken)?;
        if !new.label_ids.is_empty() || !new.assignee_ids.is_empty() {
            marks::add_labels(&mut tx, &id, ws, &new.label_ids).await?;
            marks::add_assignees(&mut tx, &id, ws, &new.assignee_ids).await?;
            card = self.find_card(&mut *tx, &id).await?;
        }
        if let Some(spot) = spot {
            repositioned(&mut tx, actor, ws, &column, &spot);
        }
        // Nothing after them reads the entry or the words: they go with the commit.
        history::record(&mut tx, actor, &id, None, &column_name);
        index::defer_write(&mut tx, index::title(&id, ws, &card.title), false);
        if !card.description.is_empty() {
            let doc = index::description_id(&id);
            let text = &card.description;
            index::defer_write(&mut tx, index::description(&doc, &id, ws, text), false);
        }
        // Those assigned and those its description names hear of it.
        Notice::new(ws, &id, actor.account(), card.created_at.clone())
            .excerpt(&card.description)
            .mentions(&card.description, None)
            .assigned(&new.assignee_ids)
            .defer(&mut tx);
        tx.emit(Change::new("card.created", ws, actor, &card, &[]));
        tx.commit().await?;
        Ok(card)
    }

    /// Renames, moves and/or places a card (Member). A move to another column
    /// of the set in effect goes to its end, or to the placement, and appends
    /// one history entry in the same transaction; a placement within the
    /// card's own column writes no history (`card.moved`, from and to the
    /// same column); a "move" to the card's own column without a placement
    /// keeps its place and writes nothing.
    pub async fn update_card(
        &self,
        actor: &Actor,
        id: &CardId,
        input: impl Into<Input<CardPatch>>,
    ) -> Result<Card> {
        self.update_card_if(actor, id, input, &IfMatch::none())
            .await
    }

    /// [`Board::update_card`] under an `If-Match` condition (api.md §22): the
    /// card re-read under the write's lock must still have a tag `cond` names
    /// (the tag of [`Board::card_if`]), else `PRECONDITION_FAILED` and nothing
    /// changes.
    pub async fn update_card_if(
        &self,
        actor: &Actor,
        id: &CardId,
        input: impl Into<Input<CardPatch>>,
        cond: &IfMatch,
    ) -> Result<Card> {
        let plain = ThreadQuery::default();
        self.update_card_in(actor, id, input, cond, &plain).await
    }

    /// [`Board::update_card_if`], answering the card as `GET /api/cards/[id]`
    /// would now (with `descriptionHtml` when `query` asks for it) and that
    /// read's tag (api.md §22), so a client saves in one request. A `query`
    /// that is neither `true` nor `false` is a 422 on `html`, with the body's
    /// check, and nothing changes.
    pub async fn save_card(
        &self,
        actor: &Actor,
        id: &CardId,
        input: impl Into<Input<CardPatch>>,
        cond: &IfMatch,
        query: &ThreadQuery,
    ) -> Result<Saved<CardView>> {
        let card = self.update_card_in(actor, id, input, cond, query).await?;
        CardView::tagged(card, query.wants_html()?, None)
    }

    /// [`Board::update_card_if`], refusing a bad `query` with the body.
    async fn update_card_in(
        &self,
        actor: &Actor,
        id: &CardId,
        input: impl Into<Input<CardPatch>>,
        cond: &IfMatch,
        query: &ThreadQuery,
    ) -> Result<Card> {
        let place = self.place_card(actor, id, Role::Member).await?;
        let patch = input.into().open()?;
        query.wants_html()?;
        // A move to a column's end (no placement) locks that column alone.
        let to_end = patch.column_id.is_some() && patch.placement.is_none();
        let (mut tx, card, _, row, at_commit) = self
            .open_card(place, patch.column_id.as_ref(), to_end, actor.account())
            .await?;
        cond.check_any(
            || {
                // As any reader was sent it: as HTML or not, watching or not.
                let tag = ETag::of_payload(CARD_TAG, &card)?;
                let watched = tag.watched();
                Ok(vec![tag.rendered(), tag, watched.rendered(), watched])
            },
            "the card changed since it was read",
        )?;
        let at = now();
        let title = patch.title.filter(|t| t.as_str() != card.title);
        let target = patch.column_id.filter(|c| *c != card.column_id);
        // Both names, read with the card under the lock: the target's, when it is
        // in the set in effect. The WIP limit is checked there too, before
        // anything is written.
        let names = match &target {
            Some(_) => {
                // An archived card adds nothing to the board's count.
                let adding = i64::from(card.archived_at.is_none());
                Some(move_names(&row, adding)?)
            }
            None => None,
        };
        let column = target.clone().unwrap_or_else(|| card.column_id.clone());
        let column = &column;
        let spot = match &patch.placement {
            Some(p) => {
                let current = target.is_none().then_some(card.position);
                Some(order::place(&mut tx, column, id, current, p).await?)
            }
            None => None,
        };
        let position = spot.as_ref().and_then(|s| s.position);
        // The description and the due time, when they change.
        let description = patch.description.filter(|d| d.as_str() != card.description);
        let due = patch.due_at.filter(|d| *d != card.due_at);
        let fields = description.is_some() || due.is_some();
        if target.is_none() && position.is_none() {
            if title.is_none() && !fields {
                return Ok(card); // nothing changes
            }
            let (renamed, described) = (title.is_some(), description.is_some());
            let due_changed = due.is_some();
            let before = card.description;
            let changes = CardPatch {
                title,
                description,
                due_at: due,
                ..CardPatch::default()
            };
            let card = update_fields(&mut tx, id, &changes, &at).await?;
            if renamed {
                let doc = index::title(id, &card.workspace_id, &card.title);
                index::defer_write(&mut tx, doc, true);
            }
            if described {
                index_description(&mut tx, &card);
            }
            fields_changed(&mut tx, actor, &before, &card, due_changed);
            tx.emit(Change::new(
                "card.updated",
                &card.workspace_id,
                actor,
                &card,
                &[],
            ));
            tx.commit().await?;
            return Ok(card);
        }
        // A move that also changes the description or the due time: those
        // first (`card.updated`), then the move as it would be alone.
        let card = match fields {
            true => {
                let mut card = card;
                let described = description.is_some();
                let due_changed = due.is_some();
                let before = std::mem::take(&mut card.description);
                let changes = CardPatch {
                    description,
                    due_at: due,
                    ..CardPatch::default()
                };
                let card = update_fields(&mut tx, id, &changes, &at).await?;
                if described {
                    index_description(&mut tx, &card);
                }
                fields_changed(&mut tx, actor, &before, &card, due_changed);
                let ws = &card.workspace_id;
                tx.emit(Change::new("card.updated", ws, actor, &card, &[]));
                card
            }
            false => card,
        };
        if let (Some(to), None, Some(_)) = (&target, &spot, &names) {
            // A move to the target's end: every value of the moved card is
            // known (the end was read with the card under the target
            // column's lock, or its sets' lock, which every other write of a
            // position there waits for, so no other card takes it), and its
            // UPDATE goes with the commit. Or (`at_commit`) the column's lock
            // and the end go with the commit too, before that UPDATE.
            let mut moved = Card {
                column_id: to.clone(),
                title: title
                    .clone()
                    .map_or_else(|| card.title.clone(), Name::into_string),
                position: store::PENDING_POSITION,
                updated_at: at,
                ..card.clone()
            };
            let mut values = vec![
                store::Value::text(id),
                store::Value::text(to),
                store::Value::text(&moved.updated_at),
                store::Value::text(&moved.title),
            ];
            if at_commit {
                tx.defer(store::column_version_bump(to));
                tx.defer(Deferred::new(move_at_commit_sql(), values));
            } else {
                moved.position = row.try_get("to_end")?;
                values.push(store::Value::text(moved.position.to_string()));
                tx.defer(Deferred::new(MOVE_TO_END_SQL, values));
            }
            return self.moved(tx, actor, card, moved, names, None).await;
        }
        // The move, the rename and the history counter in one statement.
        let sql = format!(
            "UPDATE cards SET column_id = $2, updated_at = $3, title = COALESCE($4, title), \
             history_seq = history_seq + $6, \
             position = COALESCE($5, \
                 (SELECT COALESCE(MAX(position), 0) + {SPACING} FROM cards WHERE column_id = $2)) \
             WHERE id = $1 RETURNING {RETURNED}"
        );
        let moved: Card = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(column)
            .bind(at)
            .bind(title)
            .bind(position)
            .bind(i64::from(names.is_some()))
            .fetch_one(&mut *tx)
            .await
            .map_err(order::position_taken)?;
        self.moved(tx, actor, card, moved, names, spot).await
    }

    /// The rest of a move of `card` (as read under the lock) to `moved`: its
    /// history entry (when it changed columns: `names`), its title's words when
    /// renamed, the cards a placement renumbered, the event and the commit
    /// (which gives a position left pending, [`store::PENDING_POSITION`]).
    async fn moved(
        &self,
        mut tx: WriteTx,
        actor: &Actor,
        card: Card,
        mut moved: Card,
        names: Option<MoveNames>,
        spot: Option<Spot>,
    ) -> Result<Card> {
        let id = &moved.id;
        if let Some(MoveNames {
            to: to_name,
            from: from_name,
            others_watch,
        }) = names
        {
            history::record(&mut tx, actor, id, Some(&from_name), &to_name);
            // The card's watchers hear of a change of column, with the commit
            // (after the move's own deferred statements: its column is new);
            // no statement when nobody but the actor watches it.
            if others_watch {
                Notice::new(
                    &moved.workspace_id,
                    id,
                    actor.account(),
                    moved.updated_at.clone(),
                )
                .excerpt(format!("{from_name} → {to_name}"))
                .watchers("moved")
                .defer(&mut tx);
            }
        }
        if moved.title != card.title {
            let doc = index::title(id, &moved.workspace_id, &moved.title);
            index::defer_write(&mut tx, doc, true);
        }
        if let Some(spot) = spot {
            repositioned(&mut tx, actor, &moved.workspace_id, &moved.column_id, &spot);
        }
        let from = [("fromColumnId", serde_json::json!(card.column_id))];
        let mut change = Change::new("card.moved", &moved.workspace_id, actor, &moved, &from);
        if moved.position != store::PENDING_POSITION {
            tx.emit(change);
            tx.commit().await?;
            return Ok(moved);
        }
        change.position_of = Some(moved.id.clone());
        tx.emit(change);
        let rows = tx.commit_reading().await?;
        moved.position = rows
            .iter()
            .find_map(|r| r.try_get(MOVED_POSITION).ok())
            .ok_or_else(|| Error::Internal("a move's commit answered no position".into()))?;
        Ok(moved)
    }

    /// Moves a card to another column (the CLI's `card move`); see [`Board::update_card`].
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("board-doc-move-{}", std::process::id()));
    /// # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// use board_core::{Actor, Board, Name, NewCard, Options, SetQuery};
    /// let mut options = Options::new(format!("sqlite://{}/m.db", dir.display()));
    /// options.files_dir = dir.join("files");
    /// let board = Board::open_with(options).await?;
    /// let first = board.admin().bootstrap().await?.expect("an empty database bootstraps");
    /// let ws = first.workspace.id;
    /// let columns = board.list_columns(&Actor::Operator, Some(&SetQuery::workspace(ws.clone()))).await?;
    /// let card = board.create_card(&Actor::Operator, NewCard::new(ws, Name::parse("Ship")?)).await?;
    /// board.move_card(&Actor::Operator, &card.id, &columns[2].id).await?;
    /// let history = board.card_history(&Actor::Operator, &card.id).await?;
    /// assert_eq!(history[1].from_name.as_deref(), Some("To do"));
    /// assert_eq!(history[1].to_name, "Done");
    /// # board.close().await;
    /// # Ok::<(), board_core::Error>(())
    /// # });
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # result.unwrap();
    /// ```
    pub async fn move_card(&self, actor: &Actor, id: &CardId, to: &ColumnId) -> Result<Card> {
        self.update_card(actor, id, CardPatch::default().column(to.clone()))
            .await
    }

    /// Deletes a card with its history, comments, attachments (files too) and
    /// relations (Member).
    pub async fn delete_card(&self, actor: &Actor, id: &CardId) -> Result<()> {
        let place = self.place_card(actor, id, Role::Member).await?;
        let (mut tx, card, _, _) = self.write_card(place, None).await?;
        // The card row too, as its deletion locks it: uploads and comments of
        // the card wait for it, so a comment's words committed before are
        // removed with its card's below.
        tx.lock(Lock::CardDeleted(id)).await?;
        index::forget_card(&mut tx, id).await?;
        let files: Vec<String> =
            sqlx::query_scalar("SELECT stored_name FROM attachments WHERE card_id = $1")
                .bind(id)
                .fetch_all(&mut *tx)
                .await?;
        sqlx::query("DELETE FROM cards WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let deleted = Change::deleted("card.deleted", &card.workspace_id, actor, id);
        tx.emit(deleted);
        tx.commit().await?;
        self.remove_files(&files).await;
        Ok(())
    }

    /// Where a card is, for a write to it (one statement): the card, the
    /// actor's reach (404, then 403 below `min`), the set of its column and the
    /// set in effect for it.
    pub(crate) async fn place_card(&self, actor: &Actor, id: &CardId, min: Role) -> Result<Place> {
        let account = match actor {
            Actor::Account(a) => Some(a),
            Actor::Operator | Actor::Session(_) => None,
        };
        let sql = format!(
            "SELECT {CARD_COLUMNS}, c.set_id AS current_set, {} AS effect_set, \
                    (SELECT role FROM memberships m \
                     WHERE m.workspace_id = k.workspace_id AND m.account_id = $2) AS role \
             FROM cards k JOIN columns c ON c.id = k.column_id WHERE k.id = $1",
            crate::sets::effect_set_sql("k.workspace_id", "k.project_id")
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(account)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(Error::NotFound("card"))?;
        let card = Card::from_row(&row)?;
        check_reach(actor, &card, &row, min)?;
        Ok(Place {
            card,
            sets: [row.try_get("current_set")?, row.try_get("effect_set")?],
        })
    }

    /// Opens the write of a card's place: locks the set of the column it sits
    /// in and the set in effect for it (in id order, so two writers never wait
    /// on each other crosswise), then re-reads the card under the lock, in the
    /// lock's round trip; with a `target` column, that read also reads what a
    /// move there decides on ([`move_names`]). Returns the transaction, the
    /// card as of the lock, its set in effect and the row read.
    pub(crate) async fn write_card(
        &self,
        place: Place,
        target: Option<&ColumnId>,
    ) -> Result<(WriteTx, Card, ColumnSetId, AnyRow)> {
        let (tx, card, effect, row, _) = self.open_card(place, target, false, None).await?;
        Ok((tx, card, effect, row))
    }

    /// [`Board::write_card`], or with `to_end` (a move to the end of
    /// `target`, or a rename in it) the target column's lock alone, its sets'
    /// gate shared ([`Lock::ColumnIn`]), so that moves into different columns
    /// of a board commit at once, and the card re-read locked (PostgreSQL
    /// `FOR NO KEY UPDATE`). A target that is no column falls back to the
    /// sets' lock, which refuses it as every write does.
    ///
    /// PostgreSQL takes the gate alone ([`Lock::ColumnGate`]) and leaves the
    /// column's lock for the commit (answered `true`) of a move to another
    /// column; when that column has a hard WIP limit (its count is read under
    /// the column's lock), or is the card's own (a rename there advances its
    /// version), it takes that lock at once, with the card's read again, in
    /// one more round trip.
    ///
    /// Why the source column needs no lock: every other write of a card's
    /// place or of a column holds its sets' lock, which waits for this one;
    /// other moves to an end only add below their own target's end. So the
    /// cards leaving a column are seen by no decision but their own.
    async fn open_card(
        &self,
        mut place: Place,
        target: Option<&ColumnId>,
        mut to_end: bool,
        actor: Option<&AccountId>,
    ) -> Result<(WriteTx, Card, ColumnSetId, AnyRow, bool)> {
        let gate_first = self.backend.locks_column_at_commit();
        loop {
            let (lock, locked) = match (target, to_end, gate_first) {
                (Some(column), true, false) => (
                    Lock::ColumnIn {
                        sets: &place.sets,
                        column,
                    },
                    Some(self.backend),
                ),
                (Some(column), true, true) => (
                    Lock::ColumnGate {
                        sets: &place.sets,
                        column,
                    },
                    Some(self.backend),
                ),
                _ => (Lock::ColumnSets(&place.sets), None),
            };
            let read = card_read(&place, target, locked, actor);
            let (mut tx, _, rows) = match self.write_reading(lock, Some(&read)).await {
                Err(Error::NotFound("column")) if to_end => {
                    to_end = false;
                    continue;
                }
                other => other?,
            };
            // Under the lock: a concurrent move or delete may have committed.
            let row = rows.into_iter().next().ok_or(Error::NotFound("card"))?;
            let set: ColumnSetId = row.try_get("current_set")?;
            if place.sets.contains(&set) {
                let card = Card::from_row(&row)?;
                let [_, effect] = place.sets;
                let gated = match target {
                    Some(column) if to_end && gate_first => Some(column),
                    _ => None,
                };
                let Some(column) = gated else {
                    return Ok((tx, card, effect, row, false));
                };
                let moving = *column != card.column_id;
                if moving && !Room::from_row(&row).is_ok_and(|r| r.limited()) {
                    return Ok((tx, card, effect, row, true));
                }
                // The column's lock now, in one more round trip, as
                // `Lock::ColumnIn` takes it: a hard limit's count is read
                // under it (the card's read again), and a rename in the
                // column advances its version.
                let mut rows = tx.send(&[store::column_version_bump(column), read]).await?;
                let row = rows.pop().ok_or(Error::NotFound("card"))?;
                return Ok((tx, card, effect, row, false));
            }
            // It moved into a set this lock does not hold (its set in effect
            // changed meanwhile): lock again from where it is now.
            drop(tx);
            place = self
                .place_card(&Actor::Operator, &place.card.id, Role::Viewer)
                .await?;
        }
    }
}

/// The read of a card under its sets' lock: the card and its column's set;
/// with a `target` column, also the target's name when it is in the set in
/// effect (`to_name`), the name of the card's column (`from_name`) and the
/// target's WIP room ([`wip::room_sql`]), read by [`move_names`]; the card's
/// row locked too when the write holds only the target column (`locked`),
/// and whether anyone but `actor` may watch the card (`others_watch`: a move
/// tells its watchers).
fn card_read(
    place: &Place,
    target: Option<&ColumnId>,
    locked: Option<store::Backend>,
    actor: Option<&AccountId>,
) -> Deferred {
    let card = store::Value::text(&place.card.id);
    match target {
        None => Deferred::new(card_read_sql(false), vec![card]),
        Some(target) => Deferred::new(
            match locked {
                Some(backend) => card_move_read_sql(backend),
                None => card_read_sql(true),
            },
            vec![
                card,
                store::Value::text(target),
                store::Value::text(&place.sets[1]),
                store::Value::opt(actor),
            ],
        ),
    }
}

/// The text of [`card_read`] with a target column, the card's row locked
/// for a move made under its target column's lock ([`Board::open_card`]):
/// two moves of one card under different columns' locks read it one after
/// the other.
pub(crate) fn card_move_read_sql(backend: store::Backend) -> String {
    format!("{}{}", card_read_sql(true), backend.row_lock_suffix())
}

/// The text of [`card_read`], with or without a target column.
pub(crate) fn card_read_sql(target: bool) -> String {
    match target {
        false => format!(
            "SELECT {CARD_COLUMNS}, c.set_id AS current_set \
             FROM cards k JOIN columns c ON c.id = k.column_id WHERE k.id = $1"
        ),
        // Its column by sub-selects, not a join: PostgreSQL re-reads a row
        // it waited for ([`card_move_read_sql`]) and re-evaluates the select
        // list on the new row, where a join would still test it against the
        // column it left (and answer no row).
        true => format!(
            "SELECT {CARD_COLUMNS}, \
                    (SELECT c.set_id FROM columns c WHERE c.id = k.column_id) AS current_set, \
                    (SELECT t.name FROM columns t WHERE t.id = $2 AND t.set_id = $3) AS to_name, \
                    (SELECT c.name FROM columns c WHERE c.id = k.column_id) AS from_name, {}, \
                    (SELECT COALESCE(MAX(e.position), 0) + {SPACING} FROM cards e \
                     WHERE e.column_id = $2) AS to_end, {} AS others_watch \
             FROM cards k WHERE k.id = $1",
            wip::room_sql("$2"),
            OTHERS_WATCH_SQL.replace("{account}", "$4")
        ),
    }
}

/// A card and the two sets a write to it locks: [its column's, its set in effect].
pub(crate) struct Place {
    /// The card, as read before the lock.
    pub(crate) card: Card,
    sets: [ColumnSetId; 2],
}

/// What a move to another column reads with the card: the target's name and
/// its column's, and whether anyone but the actor may watch the card.
pub(crate) struct MoveNames {
    /// The target column's name.
    pub(crate) to: String,
    /// The name of the column the card leaves.
    pub(crate) from: String,
    /// Whether anyone but the actor may watch the card
    /// (`notifications::OTHERS_WATCH_SQL`): its watchers hear of the move.
    pub(crate) others_watch: bool,
}

/// The names of a move's target column (when it is in the set in effect;
/// else `INVALID_TARGET_COLUMN`) and of the column it leaves, from the row
/// [`Board::write_card`] read with its target under the lock, with the
/// target's WIP limit: a move into a column at its hard limit is `WIP_LIMIT`
/// when it adds `adding` cards to it.
pub(crate) fn move_names(row: &AnyRow, adding: i64) -> Result<MoveNames> {
    let to_name: Option<String> = row.try_get("to_name")?;
    let to_name = to_name.ok_or_else(|| {
        Error::rule(
            Rule::InvalidTargetColumn,
            "the column is not a column of the card's set in effect",
        )
    })?;
    Room::from_row(row)?.admit(&to_name, adding)?;
    Ok(MoveNames {
        to: to_name,
        from: row.try_get("from_name")?,
        others_watch: row.try_get::<i64, _>("others_watch")? != 0,
    })
}

/// Emits `cards.repositioned` for the cards a placement renumbered, if any.
pub(crate) fn repositioned(
    tx: &mut WriteTx,
    actor: &Actor,
    ws: &WorkspaceId,
    column: &ColumnId,
    spot: &Spot,
) {
    if spot.renumbered.is_empty() {
        return;
    }
    let subject = Repositioned {
        column_id: column,
        cards: &spot.renumbered,
    };
    tx.emit(Change::new("cards.repositioned", ws, actor, &subject, &[]));
}

/// A new card's column: its id, its name and its WIP room.
type Target = (ColumnId, String, Room);

/// The read of a new card's column under its set's lock: `column` when it is
/// in `set`, else the first column (lowest position) of `set`; with its name
/// and WIP room.
fn column_read(column: Option<&ColumnId>, set: &ColumnSetId) -> Deferred {
    let set = store::Value::text(set);
    match column {
        Some(column) => Deferred::new(column_read_sql(true), vec![store::Value::text(column), set]),
        None => Deferred::new(column_read_sql(false), vec![set]),
    }
}

/// The text of [`column_read`], for a named column or the set's first.
pub(crate) fn column_read_sql(named: bool) -> String {
    let room = wip::room_sql("c.id");
    match named {
        true => {
            format!("SELECT c.id, c.name, {room} FROM columns c WHERE c.id = $1 AND c.set_id = $2")
        }
        false => format!(
            "SELECT c.id, c.name, {room} FROM columns c WHERE c.set_id = $1 \
             ORDER BY c.position LIMIT 1"
        ),
    }
}

/// The new card's column [`column_read`] found: `INVALID_TARGET_COLUMN` when
/// the named column is not in the set, or the set has no column.
fn new_card_target(row: Option<AnyRow>, named: bool) -> Result<Target> {
    new_card_column(row)?.ok_or_else(|| match named {
        true => Error::rule(
            Rule::InvalidTargetColumn,
            "the column is not a column of the card's set in effect",
        ),
        false => Error::rule(Rule::InvalidTargetColumn, "the set in effect has no column"),
    })
}

/// Reads a new card's column from a row of `id`, `name` and [`wip::room_sql`].
fn new_card_column(row: Option<AnyRow>) -> Result<Option<Target>> {
    let Some(row) = row else {
        return Ok(None);
    };
    Ok(Some((
        row.try_get("id")?,
        row.try_get("name")?,
        Room::from_row(&row)?,
    )))
}
