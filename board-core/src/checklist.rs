//! A card's checklist (api.md §24): items in order, each checked or not,
//! with who checked it and when. Every write of a card's items takes the
//! card's lock (`Lock::Card`, which advances `cards.version`): so the count
//! that refuses a 501st item is read under it, a placement reads the order
//! it rewrites under it, and the checklist's tag (that version,
//! `CardList::Checklist`) and the board's (which sums its cards' versions)
//! follow every change. An item's place is given as cards' are, by an
//! anchor (`beforeId` / `afterId`); a placement rewrites the positions of
//! the card's items (at most [`MAX_ITEMS`]) in one statement. Each item's
//! words are in the search index (its id the document's), written with the
//! commit.

use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::{FromRow, Row};

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::cards::CardList;
use crate::change::Change;
use crate::error::{Error, Result, Rule, ValidationErrors};
use crate::etag::{Conditional, IfMatch, IfNoneMatch};
use crate::ids::{AccountId, CardId, ChecklistItemId, WorkspaceId};
use crate::search::index;
use crate::store::{Lock, WriteTx};
use crate::text::ItemText;
use crate::time::{now, Timestamp};
use crate::validate::{self, Fields, FromJson, Input};

/// The most items a card's checklist holds (else 422 `TOO_MANY_ITEMS`).
pub const MAX_ITEMS: i64 = 500;

/// The distance between two items' positions.
const SPACING: i64 = 1 << 16;

/// An item of a card's checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChecklistItem {
    /// Its id.
    pub id: ChecklistItemId,
    /// Its card.
    pub card_id: CardId,
    /// What is to be done (1 to 1,000 characters).
    pub text: String,
    /// Whether it is done.
    pub done: bool,
    /// Its place in the checklist, ascending (order by it).
    pub position: i64,
    /// Who checked it; null while it is not done (or the account is gone).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub done_by: Option<AccountId>,
    /// When it was checked; null while it is not done.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub done_at: Option<Timestamp>,
}

impl<'r> FromRow<'r, AnyRow> for ChecklistItem {
    fn from_row(row: &'r AnyRow) -> sqlx::Result<ChecklistItem> {
        Ok(ChecklistItem {
            id: row.try_get("id")?,
            card_id: row.try_get("card_id")?,
            text: row.try_get("text")?,
            done: row.try_get::<i64, _>("done")? != 0,
            position: row.try_get("position")?,
            done_by: row.try_get("done_by")?,
            done_at: row.try_get("done_at")?,
        })
    }
}

/// The columns of an item.
const ITEM: &str = "id, card_id, text, done, position, done_by, done_at";

/// Where an item goes in its checklist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemPlace {
    /// Directly before this item.
    Before(ChecklistItemId),
    /// Directly after this item.
    After(ChecklistItemId),
}

impl ItemPlace {
    /// Reads `beforeId` / `afterId`; both at once is a `formErrors` entry.
    fn read(f: &mut Fields) -> Option<ItemPlace> {
        let before = f.optional("beforeId", validate::id(ChecklistItemId::parse));
        let after = f.optional("afterId", validate::id(ChecklistItemId::parse));
        match (before, after) {
            (Some(_), Some(_)) => {
                f.form_error("Give either beforeId or afterId, not both");
                None
            }
            (Some(b), None) => Some(ItemPlace::Before(b)),
            (None, Some(a)) => Some(ItemPlace::After(a)),
            (None, None) => None,
        }
    }
}

/// The body of `POST /api/cards/[id]/checklist`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewItem {
    /// What is to be done.
    pub text: ItemText,
    /// Where; default: the end.
    pub place: Option<ItemPlace>,
}

impl FromJson for NewItem {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let text = f.required("text", item_text);
        let place = ItemPlace::read(&mut f);
        f.finish()?;
        Ok(NewItem {
            text: text.expect("checked"),
            place,
        })
    }
}

/// The body of `PATCH /api/checklist/[id]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemPatch {
    /// New text.
    pub text: Option<ItemText>,
    /// Checked or not.
    pub done: Option<bool>,
    /// New place.
    pub place: Option<ItemPlace>,
}

impl FromJson for ItemPatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let text = f.optional("text", item_text);
        let done = f.optional("done", validate::boolean);
        let place = ItemPlace::read(&mut f);
        f.finish()?;
        Ok(ItemPatch { text, done, place })
    }
}

/// An item's text ([`ItemText`]).
fn item_text(v: &Value) -> std::result::Result<ItemText, String> {
    ItemText::parse(&validate::string(v)?).map_err(|e| e.message().to_string())
}

/// The search index's document of an item of a card of workspace `ws`.
fn item_doc<'a>(item: &'a ChecklistItem, ws: &'a WorkspaceId) -> index::Doc<'a> {
    index::Doc {
        id: item.id.as_str(),
        workspace: ws.as_str(),
        card: item.card_id.as_str(),
        text: &item.text,
    }
}

/// The subject of `checklist.deleted`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Gone<'a> {
    id: &'a ChecklistItemId,
    card_id: &'a CardId,
}

/// A card's checklist (api.md §24): the operations of `checklist.rs`.
impl Board {
    /// A card's checklist in order, with its tag (api.md §22), or only the
    /// tag when `cond` names it (Viewer).
    pub async fn checklist_if(
        &self,
        actor: &Actor,
        card: &CardId,
        cond: &IfNoneMatch,
    ) -> Result<Conditional<Vec<ChecklistItem>>> {
        let (_, tag) = self
            .reach_card_list(actor, card, CardList::Checklist)
            .await?;
        let items = async {
            let sql = format!(
                "SELECT {ITEM} FROM checklist_items WHERE card_id = $1 ORDER BY position, id"
            );
            Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(card)
                .fetch_all(&self.pool)
                .await?)
        };
        Conditional::answer(tag, cond, items).await
    }

    /// Adds an item to a card's checklist, at the end or at its place
    /// (Member): `checklist.created`. 422 `TOO_MANY_ITEMS` when the card has
    /// [`MAX_ITEMS`] already.
    pub async fn create_checklist_item(
        &self,
        actor: &Actor,
        card: &CardId,
        input: impl Into<Input<NewItem>>,
    ) -> Result<ChecklistItem> {
        let found = self.reach_card(actor, card, Role::Member).await?;
        let new = input.into().open()?;
        let mut tx = self.write(Lock::Card(card)).await?;
        let count: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM checklist_items WHERE card_id = $1")
                .bind(card)
                .fetch_one(&mut *tx)
                .await?;
        if count >= MAX_ITEMS {
            return Err(Error::rule(
                Rule::TooManyItems,
                format!("a checklist holds at most {MAX_ITEMS} items: remove one first"),
            ));
        }
        let id = ChecklistItemId::new();
        let sql = format!(
            "INSERT INTO checklist_items (id, card_id, text, done, position, created_at) \
             SELECT $1, $2, $3, 0, COALESCE(MAX(position), 0) + {SPACING}, $4 \
             FROM checklist_items WHERE card_id = $2 RETURNING {ITEM}"
        );
        let mut item: ChecklistItem = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(&id)
            .bind(card)
            .bind(&new.text)
            .bind(now())
            .fetch_one(&mut *tx)
            .await?;
        if let Some(place) = &new.place {
            item.position = place_item(&mut tx, card, &id, place).await?;
        }
        let ws = &found.workspace_id;
        index::defer_write(&mut tx, item_doc(&item, ws), false);
        tx.emit(Change::new("checklist.created", ws, actor, &item, &[]));
        tx.commit().await?;
        Ok(item)
    }

    /// Changes an item's text, checks or unchecks it (who and when are
    /// kept), and/or moves it (Member): `checklist.updated`. Under an
    /// `If-Match` naming the checklist's tag (`GET …/checklist`); else 412
    /// and nothing changes.
    pub async fn update_checklist_item(
        &self,
        actor: &Actor,
        id: &ChecklistItemId,
        input: impl Into<Input<ItemPatch>>,
        cond: &IfMatch,
    ) -> Result<ChecklistItem> {
        let (card, ws) = self.item_card(actor, id).await?;
        let patch = input.into().open()?;
        let (mut tx, version) = self.write_at(Lock::Card(&card)).await?;
        cond.check(
            || Ok(CardList::Checklist.tag(&card, version, 0)),
            "the checklist changed since it was read",
        )?;
        let at = now();
        let done = patch.done.map(i64::from);
        let sql = format!(
            "UPDATE checklist_items SET text = COALESCE($2, text), \
             done_by = CASE WHEN $3 = 1 AND done = 0 THEN $4 WHEN $3 = 0 THEN NULL ELSE done_by END, \
             done_at = CASE WHEN $3 = 1 AND done = 0 THEN $5 WHEN $3 = 0 THEN NULL ELSE done_at END, \
             done = COALESCE($3, done) \
             WHERE id = $1 RETURNING {ITEM}"
        );
        let mut item: ChecklistItem = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(&patch.text)
            .bind(done)
            .bind(actor.account())
            .bind(&at)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(Error::NotFound("checklist item"))?;
        if let Some(place) = &patch.place {
            item.position = place_item(&mut tx, &card, id, place).await?;
        }
        if patch.text.is_some() {
            index::defer_write(&mut tx, item_doc(&item, &ws), true);
        }
        tx.emit(Change::new("checklist.updated", &ws, actor, &item, &[]));
        tx.commit().await?;
        Ok(item)
    }

    /// Deletes an item (Member): `checklist.deleted` with `{id, cardId}`.
    pub async fn delete_checklist_item(&self, actor: &Actor, id: &ChecklistItemId) -> Result<()> {
        let (card, ws) = self.item_card(actor, id).await?;
        let mut tx = self.write(Lock::Card(&card)).await?;
        let gone = sqlx::query("DELETE FROM checklist_items WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if gone.rows_affected() == 0 {
            return Err(Error::NotFound("checklist item"));
        }
        index::defer_forget(&mut tx, id);
        let subject = Gone { id, card_id: &card };
        tx.emit(Change::new("checklist.deleted", &ws, actor, &subject, &[]));
        tx.commit().await?;
        Ok(())
    }

    /// The card and workspace of item `id`, reached as Member: 404 when
    /// there is no such item, 403 below Member.
    async fn item_card(
        &self,
        actor: &Actor,
        id: &ChecklistItemId,
    ) -> Result<(CardId, WorkspaceId)> {
        let row: Option<(CardId, WorkspaceId)> = sqlx::query_as(
            "SELECT i.card_id, k.workspace_id FROM checklist_items i \
             JOIN cards k ON k.id = i.card_id WHERE i.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let (card, ws) = row.ok_or(Error::NotFound("checklist item"))?;
        self.require(&self.pool, actor, &ws, Role::Member).await?;
        Ok((card, ws))
    }
}

/// Puts item `id` of card `card` at `place` (under the card's lock): reads
/// the order, moves the item there and rewrites every item's position,
/// [`SPACING`] apart, in one statement. 422 on the anchor's field when it is
/// not another item of the card. Returns the item's new position.
async fn place_item(
    tx: &mut WriteTx,
    card: &CardId,
    id: &ChecklistItemId,
    place: &ItemPlace,
) -> Result<i64> {
    let ids: Vec<ChecklistItemId> = sqlx::query_scalar(
        "SELECT id FROM checklist_items WHERE card_id = $1 ORDER BY position, id",
    )
    .bind(card)
    .fetch_all(&mut **tx)
    .await?;
    let mut order: Vec<ChecklistItemId> = ids.into_iter().filter(|i| i != id).collect();
    let (anchor, after, field) = match place {
        ItemPlace::Before(a) => (a, false, "beforeId"),
        ItemPlace::After(a) => (a, true, "afterId"),
    };
    let at = order
        .iter()
        .position(|i| i == anchor)
        .ok_or_else(|| ValidationErrors::one(field, "not another item of this checklist"))?;
    let at = at + usize::from(after);
    order.insert(at, id.clone());
    let cases: String = (0..order.len())
        .map(|i| format!(" WHEN ${} THEN {}", i + 2, (i as i64 + 1) * SPACING))
        .collect();
    let sql =
        format!("UPDATE checklist_items SET position = CASE id{cases} END WHERE card_id = $1");
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(card);
    for i in &order {
        q = q.bind(i);
    }
    q.execute(&mut **tx).await?;
    Ok((at as i64 + 1) * SPACING)
}
