//! `DELETE /api/columns/[id]`: the cards either move to another column of the
//! set (appended in their order, one history entry each) or are deleted with
//! everything hanging off them. A few set-based statements, whatever the count.

use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::change::Change;
use crate::error::{Error, Result, Rule, ValidationErrors};
use crate::history;
use crate::ids::{ColumnId, ColumnSetId};
use crate::search::index;
use crate::store::WriteTx;
use crate::validate::{self, Fields, FromJson, Input};
use crate::wip::{self, Room};

/// The exact confirmation that deleting a column's cards needs.
pub const CONFIRM_DELETE_CARDS: &str = "APAGAR CARDS";

/// What happens to the cards of a deleted column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardsFate {
    /// Append them to another column of the same set.
    Move {
        /// The column that receives them (`targetColumnId`).
        target: ColumnId,
    },
    /// Delete them, with their comments, attachments, relations and history.
    Delete {
        /// Must be [`CONFIRM_DELETE_CARDS`].
        confirm: String,
    },
}

/// The body of `DELETE /api/columns/[id]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteColumn {
    /// The decision about the cards (`cards`: `MOVE` or `DELETE`).
    pub cards: CardsFate,
}

impl FromJson for DeleteColumn {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let cards = f.required_naming(
            "cards",
            &format!(
                "MOVE (with targetColumnId) or DELETE (with confirm \"{CONFIRM_DELETE_CARDS}\")"
            ),
            |v| validate::one_of(v, &["MOVE", "DELETE"]),
        );
        let target = f.optional("targetColumnId", validate::id(ColumnId::parse));
        let confirm = f.optional("confirm", validate::string);
        let fate = match (cards, target, confirm) {
            (Some("MOVE"), Some(target), _) => Some(CardsFate::Move { target }),
            (Some("MOVE"), None, _) => {
                f.field_error("targetColumnId", "Required when cards is MOVE");
                None
            }
            (Some(_), _, Some(c)) => Some(CardsFate::Delete { confirm: c }),
            (Some(_), _, None) => {
                f.field_error("confirm", "Required when cards is DELETE");
                None
            }
            (None, _, _) => None,
        };
        f.finish()?;
        DeleteColumn {
            cards: fate.expect("checked"),
        }
        .checked()
    }
}

impl DeleteColumn {
    /// Moves the column's cards to `target`, another column of its set.
    pub fn move_cards(target: ColumnId) -> DeleteColumn {
        DeleteColumn {
            cards: CardsFate::Move { target },
        }
    }

    /// Deletes the column's cards; `confirm` must be [`CONFIRM_DELETE_CARDS`].
    pub fn delete_cards(confirm: impl Into<String>) -> DeleteColumn {
        DeleteColumn {
            cards: CardsFate::Delete {
                confirm: confirm.into(),
            },
        }
    }

    /// Applies the rule a typed input must meet too: deleting cards needs the
    /// exact confirmation.
    pub(crate) fn checked(self) -> Result<Self> {
        match &self.cards {
            CardsFate::Delete { confirm } if confirm != CONFIRM_DELETE_CARDS => {
                Err(ValidationErrors::one(
                    "confirm",
                    format!("Must be exactly '{CONFIRM_DELETE_CARDS}'"),
                ))
            }
            _ => Ok(self),
        }
    }
}

/// The outcome of a column deletion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ColumnDeleted {
    /// Always `true`.
    pub deleted: bool,
    /// Cards moved to the target column.
    pub cards_moved: u64,
    /// Cards deleted with the column.
    pub cards_deleted: u64,
}

/// Columns: delete: the operations of `columns/delete.rs`.
impl Board {
    /// Deletes a column (Member). Refused with `LAST_COLUMN` for the last column
    /// of its set, `DONE_COLUMN` for the done column (mark another first),
    /// `INVALID_TARGET_COLUMN` for a target outside the set, and `WIP_LIMIT`
    /// when the moved cards would put the target over its hard limit.
    pub async fn delete_column(
        &self,
        actor: &Actor,
        id: &ColumnId,
        input: impl Into<Input<DeleteColumn>>,
    ) -> Result<ColumnDeleted> {
        let (ws, set) = self.column_home(&self.pool, id).await?;
        self.require(&self.pool, actor, &ws, Role::Member).await?;
        let mut tx = self.write_columns(&ws, &set).await?;
        self.require_column_management(&mut *tx, &ws).await?;
        let del = input.into().open()?.checked()?;
        // Under the lock: the column may have gone, or lost/gained the mark.
        let column = self.find_column(&mut *tx, id).await?;
        let columns: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM columns WHERE set_id = $1")
            .bind(&set)
            .fetch_one(&mut *tx)
            .await?;
        if columns <= 1 {
            return Err(Error::rule(
                Rule::LastColumn,
                "a set keeps at least one column",
            ));
        }
        if column.done {
            return Err(Error::rule(
                Rule::DoneColumn,
                "the done column cannot be deleted: mark another column done first",
            ));
        }
        let mut files = Vec::new();
        let mut outcome = ColumnDeleted {
            deleted: true,
            cards_moved: 0,
            cards_deleted: 0,
        };
        let (fate, target_id) = match &del.cards {
            CardsFate::Move { target } => ("MOVE", serde_json::json!(target)),
            CardsFate::Delete { .. } => ("DELETE", Value::Null),
        };
        match del.cards {
            CardsFate::Move { target } => {
                let to_name = target_in_set(&mut tx, &target, id, &set).await?;
                outcome.cards_moved =
                    move_cards(&mut tx, actor, id, &target, &column.name, &to_name).await?;
            }
            CardsFate::Delete { .. } => {
                tx.lock_column_cards(id).await?;
                index::forget_column(&mut tx, id).await?;
                files = sqlx::query_scalar(
                    "SELECT a.stored_name FROM attachments a JOIN cards c ON c.id = a.card_id \
                     WHERE c.column_id = $1",
                )
                .bind(id)
                .fetch_all(&mut *tx)
                .await?;
                outcome.cards_deleted = sqlx::query("DELETE FROM cards WHERE column_id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
            }
        }
        sqlx::query("DELETE FROM columns WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // One event for the whole deletion, however many cards it took.
        let extra = [
            ("cards", Value::from(fate)),
            ("targetColumnId", target_id),
            ("cardsMoved", Value::from(outcome.cards_moved)),
            ("cardsDeleted", Value::from(outcome.cards_deleted)),
        ];
        let subject = serde_json::json!({ "id": id });
        tx.emit(Change::new("column.deleted", &ws, actor, &subject, &extra));
        tx.commit().await?;
        self.remove_files(&files).await;
        Ok(outcome)
    }
}

/// The name of `target` when it is another column of `set`; `WIP_LIMIT` when
/// the cards of `id` would put it over its hard limit (one statement; the
/// caller holds the set's lock).
async fn target_in_set(
    tx: &mut WriteTx,
    target: &ColumnId,
    id: &ColumnId,
    set: &ColumnSetId,
) -> Result<String> {
    let row = if target == id {
        None
    } else {
        let sql = format!(
            "SELECT c.name, {}, (SELECT COUNT(*) FROM cards WHERE column_id = $3 AND archived_at IS NULL) AS moving \
             FROM columns c WHERE c.id = $1 AND c.set_id = $2",
            wip::room_sql("c.id")
        );
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(target)
            .bind(set)
            .bind(id)
            .fetch_optional(&mut **tx)
            .await?
    };
    let row = row.ok_or_else(|| {
        Error::rule(
            Rule::InvalidTargetColumn,
            "the target must be another column of the same set",
        )
    })?;
    let name: String = row.try_get("name")?;
    Room::from_row(&row)?.admit(&name, row.try_get("moving")?)?;
    Ok(name)
}

/// Appends every card of `from` to the end of `to`, keeping their order, with
/// one history entry each: a few statements whatever the number of cards (the
/// history insert numbers each entry `history_seq + 1`; the move advances it).
async fn move_cards(
    tx: &mut WriteTx,
    actor: &Actor,
    from: &ColumnId,
    to: &ColumnId,
    from_name: &str,
    to_name: &str,
) -> Result<u64> {
    history::append_column_move(tx, actor, from, to, from_name, to_name).await?;
    // Shift the cards past the target's last card in one statement, the first
    // of them one spacing below it as an append would be: their order is kept,
    // gaps included, and positions stay unique in the target (api.md §16).
    let (last, first): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT COALESCE(MAX(position), 0) FROM cards WHERE column_id = $2), \
                (SELECT COALESCE(MIN(position), 0) FROM cards WHERE column_id = $1)",
    )
    .bind(from)
    .bind(to)
    .fetch_one(&mut **tx)
    .await?;
    let moved = sqlx::query(
        "UPDATE cards SET column_id = $2, position = position + $3, updated_at = $4, \
         history_seq = history_seq + 1 WHERE column_id = $1",
    )
    .bind(from)
    .bind(to)
    .bind(last + crate::order::SPACING - first)
    .bind(crate::time::now())
    .execute(&mut **tx)
    .await?;
    Ok(moved.rows_affected())
}
