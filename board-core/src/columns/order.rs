//! `PATCH /api/columns/order`: the given columns take, in the given order, the
//! positions they already occupy together. Other columns keep theirs.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::change::Change;
use crate::error::{Error, Result, Rule, ValidationErrors};
use crate::ids::{ColumnId, ColumnSetId, WorkspaceId};
use crate::store::placeholders;
use crate::validate::{self, Fields, FromJson, Input};

/// The most ids one reorder takes.
pub const MAX_REORDER: usize = 1000;

/// The body of `PATCH /api/columns/order`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnOrder {
    /// Columns of one set, in their new order (non-empty, no duplicates).
    pub column_ids: Vec<ColumnId>,
}

impl FromJson for ColumnOrder {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let ids = f.required("columnIds", |v| {
            let items = v.as_array().ok_or_else(|| "Expected array".to_string())?;
            items
                .iter()
                .map(validate::string)
                .collect::<Result<Vec<_>, _>>()
        });
        f.finish()?;
        let ids = ids.expect("checked");
        check_ids(&ids)?;
        // A well-formed body naming an id that cannot exist: that column is not found.
        ids.iter()
            .map(|s| ColumnId::parse(s).ok_or(Error::NotFound("column")))
            .collect::<Result<Vec<_>>>()
            .map(|column_ids| ColumnOrder { column_ids })
    }
}

fn check_ids<S: AsRef<str>>(ids: &[S]) -> Result<()> {
    let message = if ids.is_empty() {
        "Must name at least one column".to_string()
    } else if ids.len() > MAX_REORDER {
        format!(
            "Too many: at most {MAX_REORDER} columns, this has {}",
            ids.len()
        )
    } else if ids.iter().map(AsRef::as_ref).collect::<HashSet<_>>().len() != ids.len() {
        "Must not name the same column twice".to_string()
    } else {
        return Ok(());
    };
    Err(ValidationErrors::one("columnIds", message))
}

impl ColumnOrder {
    /// Columns of one set in their new order.
    pub fn new(column_ids: Vec<ColumnId>) -> ColumnOrder {
        ColumnOrder { column_ids }
    }

    /// Applies the rules a typed input must meet too (non-empty, no duplicates).
    pub(crate) fn checked(self) -> Result<Self> {
        check_ids(&self.column_ids)?;
        Ok(self)
    }
}

/// Columns: reorder: the operations of `columns/order.rs`.
impl Board {
    /// Reorders a subset of one set (Member); returns how many columns were
    /// given. Unknown ids are 404, ids of several sets `MIXED_SETS`.
    pub async fn reorder_columns(
        &self,
        actor: &Actor,
        input: impl Into<Input<ColumnOrder>>,
    ) -> Result<usize> {
        let ids = input.into().open()?.checked()?.column_ids;
        let sql = format!(
            "SELECT DISTINCT s.workspace_id, c.set_id FROM columns c \
             JOIN column_sets s ON s.id = c.set_id WHERE c.id IN ({})",
            placeholders(1, ids.len())
        );
        let count_sql = format!(
            "SELECT COUNT(*) FROM columns WHERE id IN ({})",
            placeholders(1, ids.len())
        );
        let mut q = sqlx::query_as::<_, (WorkspaceId, ColumnSetId)>(sqlx::AssertSqlSafe(sql));
        let mut count = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(count_sql));
        for id in &ids {
            q = q.bind(id);
            count = count.bind(id);
        }
        if count.fetch_one(&self.pool).await? != ids.len() as i64 {
            return Err(Error::NotFound("column"));
        }
        let homes = q.fetch_all(&self.pool).await?;
        let workspaces: BTreeSet<&WorkspaceId> = homes.iter().map(|(w, _)| w).collect();
        for ws in &workspaces {
            self.require(&self.pool, actor, ws, Role::Member).await?;
        }
        for ws in &workspaces {
            self.require_column_management(&self.pool, ws).await?;
        }
        let [(ws, set)] = homes.as_slice() else {
            return Err(Error::rule(
                Rule::MixedSets,
                "the columns belong to several sets: reorder one set at a time",
            ));
        };
        let mut tx = self.write_columns(ws, set).await?;
        // Under the lock: the positions the given columns hold together now.
        let sql = format!(
            "SELECT position FROM columns WHERE set_id = $1 AND id IN ({}) ORDER BY position",
            placeholders(2, ids.len())
        );
        let mut q = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql)).bind(set);
        for id in &ids {
            q = q.bind(id);
        }
        let positions = q.fetch_all(&mut *tx).await?;
        if positions.len() != ids.len() {
            return Err(Error::NotFound("column"));
        }
        // Two statements, so the unique (set, position) index never sees a
        // transient duplicate: park the columns on negative positions, then
        // give each its new place.
        let sql = format!(
            "UPDATE columns SET position = -1 - position WHERE set_id = $1 AND id IN ({})",
            placeholders(2, ids.len())
        );
        let mut park = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(set);
        for id in &ids {
            park = park.bind(id);
        }
        park.execute(&mut *tx).await?;
        let cases: String = (0..ids.len())
            .map(|i| format!(" WHEN ${} THEN ${}", 2 * i + 2, 2 * i + 3))
            .collect();
        let sql = format!(
            "UPDATE columns SET position = CASE id{cases} END WHERE set_id = $1 AND position < 0"
        );
        let mut place = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(set);
        for (id, position) in ids.iter().zip(&positions) {
            place = place.bind(id).bind(*position);
        }
        place.execute(&mut *tx).await?;
        let mut reordered = self.set_columns(&mut *tx, set).await?;
        reordered.retain(|c| ids.contains(&c.id));
        let ws = &homes[0].0;
        tx.emit(Change::new("columns.reordered", ws, actor, &reordered, &[]));
        tx.commit().await?;
        Ok(ids.len())
    }
}
