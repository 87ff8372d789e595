//! A card's labels and assignees (api.md §24): rows of `card_labels` and
//! `card_assignees`, added and removed one at a time (`PUT` and `DELETE`), so
//! that two people labelling one card at once each add their own row and
//! lose nothing. A label must be one of the card's workspace
//! (`INVALID_LABEL`), an assignee a member of it, in any role
//! (`NOT_A_MEMBER`): each insert selects the rows it adds from `labels` or
//! `memberships`, so an id that is not one adds no row and refuses the
//! request (its transaction rolls back). An assignment references the
//! membership (migration 0018): removing the member unassigns it.

use super::{Card, RETURNED};
use crate::access::{Actor, Role};
use crate::board::Board;
use crate::change::Change;
use crate::error::{Error, Result, Rule};
use crate::ids::{AccountId, CardId, LabelId, WorkspaceId};
use crate::notifications::Notice;
use crate::store::{placeholders, Deferred, Lock, Value, WriteTx};
use crate::time::{now, tick, Timestamp};

/// Gives the new card `card` the labels `labels` (labels of workspace `ws`),
/// in one statement. `INVALID_LABEL` for an id that is not a label of `ws`
/// (fewer rows than ids: the card is new, so none was there).
pub(crate) async fn add_labels(
    tx: &mut WriteTx,
    card: &CardId,
    ws: &WorkspaceId,
    labels: &[LabelId],
) -> Result<()> {
    if labels.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "INSERT INTO card_labels (card_id, label_id) SELECT $1, l.id FROM labels l \
         WHERE l.workspace_id = $2 AND l.id IN ({})",
        placeholders(3, labels.len())
    );
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(card).bind(ws);
    for l in labels {
        q = q.bind(l);
    }
    let added = q.execute(&mut **tx).await?.rows_affected();
    if added < labels.len() as u64 {
        return Err(invalid_label());
    }
    Ok(())
}

/// Assigns the new card `card` to `accounts` (members of workspace `ws`, any
/// role), in this order, in one statement. `NOT_A_MEMBER` for an account
/// that is not a member of `ws`.
pub(crate) async fn add_assignees(
    tx: &mut WriteTx,
    card: &CardId,
    ws: &WorkspaceId,
    accounts: &[AccountId],
) -> Result<()> {
    if accounts.is_empty() {
        return Ok(());
    }
    // Each account's time one millisecond after the one before (the clock
    // is strictly increasing: `tick`), so they sort as given.
    let base = tick();
    let values: Vec<String> = (0..accounts.len())
        .map(|i| format!("(${}, ${})", 3 + 2 * i, 4 + 2 * i))
        .collect();
    let sql = format!(
        "INSERT INTO card_assignees (card_id, workspace_id, account_id, assigned_at) \
         SELECT $1, m.workspace_id, v.column1, v.column2 FROM (VALUES {}) v \
         JOIN memberships m ON m.account_id = v.column1 AND m.workspace_id = $2",
        values.join(", ")
    );
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(card).bind(ws);
    for (i, a) in accounts.iter().enumerate() {
        q = q.bind(a).bind(Timestamp::from_millis(base + i as i64));
    }
    let added = q.execute(&mut **tx).await?.rows_affected();
    if added < accounts.len() as u64 {
        return Err(not_a_member());
    }
    Ok(())
}

/// The refusal of a label that is not one of the card's workspace.
pub(crate) fn invalid_label() -> Error {
    Error::rule(
        Rule::InvalidLabel,
        "the label is not a label of the card's workspace: GET /api/labels?tenant=… lists them",
    )
}

/// The refusal of an account that is not a member of the card's workspace.
pub(crate) fn not_a_member() -> Error {
    Error::rule(
        Rule::NotAMember,
        "the account is not a member of the card's workspace (any role): \
         GET /api/members?tenant=… lists them",
    )
}

/// A label or an assignee of a card, as `PUT` and `DELETE` name it.
#[derive(Debug, Clone, Copy)]
enum Mark<'a> {
    Label(&'a LabelId),
    Assignee(&'a AccountId),
}

impl<'a> Mark<'a> {
    /// The change itself, sent with the card's lock as the read that decides
    /// (`$1` the card, `$2` the mark, `$3` its workspace, `$4` the time): an
    /// add inserts the row when the mark is valid there (a label of the
    /// workspace, a member of it) and absent; a removal deletes it. Either
    /// answers a row when it changed something.
    fn change(self, add: bool) -> &'static str {
        match (self, add) {
            (Mark::Label(_), true) => {
                "INSERT INTO card_labels (card_id, label_id) SELECT $1, l.id FROM labels l \
                 WHERE l.id = $2 AND l.workspace_id = $3 AND $4 <> '' \
                 ON CONFLICT DO NOTHING RETURNING label_id"
            }
            (Mark::Assignee(_), true) => {
                "INSERT INTO card_assignees (card_id, workspace_id, account_id, assigned_at) \
                 SELECT $1, m.workspace_id, m.account_id, $4 FROM memberships m \
                 WHERE m.account_id = $2 AND m.workspace_id = $3 \
                 ON CONFLICT DO NOTHING RETURNING account_id"
            }
            (Mark::Label(_), false) => {
                "DELETE FROM card_labels WHERE card_id = $1 AND label_id = $2 \
                 AND $3 <> '' AND $4 <> '' RETURNING label_id"
            }
            (Mark::Assignee(_), false) => {
                "DELETE FROM card_assignees WHERE card_id = $1 AND account_id = $2 \
                 AND $3 <> '' AND $4 <> '' RETURNING account_id"
            }
        }
    }

    /// Whether the mark is valid in workspace `$2` (`$1` the mark).
    fn valid(self) -> &'static str {
        match self {
            Mark::Label(_) => "SELECT COUNT(*) FROM labels WHERE id = $1 AND workspace_id = $2",
            Mark::Assignee(_) => {
                "SELECT COUNT(*) FROM memberships WHERE account_id = $1 AND workspace_id = $2"
            }
        }
    }

    /// The mark's id.
    fn id(self) -> &'a str {
        match self {
            Mark::Label(l) => l.as_str(),
            Mark::Assignee(a) => a.as_str(),
        }
    }

    /// The refusal of a mark that is not valid in the card's workspace.
    fn invalid(self) -> Error {
        match self {
            Mark::Label(_) => invalid_label(),
            Mark::Assignee(_) => not_a_member(),
        }
    }
}

/// A card's labels and assignees (api.md §24): the operations of `cards/marks.rs`.
impl Board {
    /// Puts label `label` on card `card` (Member): 200 with the card,
    /// `card.updated` with it; when the card has it already, nothing
    /// changes and nothing is emitted. `INVALID_LABEL` for a label that is
    /// not one of the card's workspace.
    pub async fn put_card_label(
        &self,
        actor: &Actor,
        card: &CardId,
        label: &LabelId,
    ) -> Result<Card> {
        self.mark(actor, card, Mark::Label(label), true).await
    }

    /// Takes label `label` off card `card` (Member), as
    /// [`Board::put_card_label`] puts it; a label the card does not have
    /// changes nothing.
    pub async fn delete_card_label(
        &self,
        actor: &Actor,
        card: &CardId,
        label: &LabelId,
    ) -> Result<Card> {
        self.mark(actor, card, Mark::Label(label), false).await
    }

    /// Assigns card `card` to `account` (Member), after its other assignees:
    /// as [`Board::put_card_label`]. `NOT_A_MEMBER` for an account that is not
    /// a member of the card's workspace (any role).
    pub async fn put_card_assignee(
        &self,
        actor: &Actor,
        card: &CardId,
        account: &AccountId,
    ) -> Result<Card> {
        self.mark(actor, card, Mark::Assignee(account), true).await
    }

    /// Unassigns `account` from card `card` (Member); an account not
    /// assigned changes nothing.
    pub async fn delete_card_assignee(
        &self,
        actor: &Actor,
        card: &CardId,
        account: &AccountId,
    ) -> Result<Card> {
        self.mark(actor, card, Mark::Assignee(account), false).await
    }

    /// Adds (`add`) or removes `mark` on card `id`. The card's reach (404,
    /// then 403 below Member), then its lock (`Lock::Card`, which advances
    /// its version: the board's tag follows) with the change as the read
    /// that decides, and the card's `updated_at` with the card returned: as
    /// many statements as a rename (`statements.rs`). An add that changed
    /// nothing reads, in one statement more, whether the mark was invalid
    /// (422) or there already (200, nothing emitted; the transaction rolls
    /// back).
    async fn mark(&self, actor: &Actor, id: &CardId, mark: Mark<'_>, add: bool) -> Result<Card> {
        let card = self.reach_card(actor, id, Role::Member).await?;
        let ws = &card.workspace_id;
        let at = now();
        let values = vec![
            Value::text(id),
            Value::text(mark.id()),
            Value::text(ws),
            Value::text(&at),
        ];
        let change = Deferred::new(mark.change(add), values);
        let (mut tx, _, rows) = self.write_reading(Lock::Card(id), Some(&change)).await?;
        if rows.is_empty() {
            if add {
                let valid: i64 = sqlx::query_scalar(mark.valid())
                    .bind(mark.id())
                    .bind(ws)
                    .fetch_one(&mut *tx)
                    .await?;
                if valid == 0 {
                    return Err(mark.invalid());
                }
            }
            return Ok(card); // nothing changes; the transaction rolls back
        }
        let sql = format!("UPDATE cards SET updated_at = $2 WHERE id = $1 RETURNING {RETURNED}");
        let card: Card = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(&at)
            .fetch_one(&mut *tx)
            .await?;
        if let (Mark::Assignee(account), true) = (mark, add) {
            // The account just assigned hears of it, with the commit.
            Notice::new(&card.workspace_id, id, actor.account(), at.clone())
                .assigned(std::slice::from_ref(account))
                .defer(&mut tx);
        }
        tx.emit(Change::new(
            "card.updated",
            &card.workspace_id,
            actor,
            &card,
            &[],
        ));
        tx.commit().await?;
        Ok(card)
    }
}
