//! `PATCH /api/columns/[id]`: rename, recolour, take the done mark, and set
//! or clear the WIP limit.

use serde_json::Value;

use super::column::{accent, Accent, Column};
use crate::access::{Actor, Role};
use crate::board::Board;
use crate::change::Change;
use crate::error::{Error, Result, Rule};
use crate::ids::ColumnId;
use crate::text::Name;
use crate::validate::{self, Fields, FromJson, Input};
use crate::wip::WipLimit;

/// The body of `PATCH /api/columns/[id]`; absent fields stay as they are.
/// `tenantId` and `projectId` are refused: a column's set is immutable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(rename_all = "camelCase")
)]
pub struct ColumnPatch {
    /// New name (trimmed, 1..=100 characters).
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub name: Option<Name>,
    /// New accent (`color` on the wire).
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub color: Option<Accent>,
    /// `true` moves the done mark here; `false` on the done column is refused.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub done: Option<bool>,
    /// New WIP limit (`wipLimit`): `Some(None)` (`null` on the wire) removes it.
    /// A limit below the column's current count is allowed.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<WipLimit>))]
    pub wip_limit: Option<Option<WipLimit>>,
}

impl FromJson for ColumnPatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let name = f.optional("name", validate::name);
        let color = f.optional("color", accent);
        let done = f.optional("done", validate::boolean);
        let wip_limit = f.present("wipLimit", WipLimit::from_json);
        f.finish()?;
        Ok(ColumnPatch {
            name,
            color,
            done,
            wip_limit,
        })
    }
}

impl ColumnPatch {
    /// Renames the column (start from `ColumnPatch::default()`, which changes nothing).
    pub fn name(mut self, name: Name) -> ColumnPatch {
        self.name = Some(name);
        self
    }

    /// Recolours the column.
    pub fn color(mut self, color: Accent) -> ColumnPatch {
        self.color = Some(color);
        self
    }

    /// Moves the set's done mark to the column.
    pub fn done(mut self) -> ColumnPatch {
        self.done = Some(true);
        self
    }

    /// Sets the WIP limit (`None`: removes it).
    pub fn wip_limit(mut self, limit: Option<WipLimit>) -> ColumnPatch {
        self.wip_limit = Some(limit);
        self
    }
}

/// Columns: rename, recolour, done mark, WIP limit: the operations of `columns/update.rs`.
impl Board {
    /// Renames, recolours or marks a column done (Member). The done mark moves
    /// from the set's previous done column; unsetting it is refused with
    /// `DONE_MARK_REQUIRED` (mark another column instead).
    pub async fn update_column(
        &self,
        actor: &Actor,
        id: &ColumnId,
        input: impl Into<Input<ColumnPatch>>,
    ) -> Result<Column> {
        let (ws, set) = self.column_home(&self.pool, id).await?;
        self.require(&self.pool, actor, &ws, Role::Member).await?;
        let mut tx = self.write_columns(&ws, &set).await?;
        self.require_column_management(&mut *tx, &ws).await?;
        let patch = input.into().open()?;
        let current = self.find_column(&mut *tx, id).await?;
        match patch.done {
            Some(false) if current.done => {
                return Err(Error::rule(
                    Rule::DoneMarkRequired,
                    "a set keeps its done column: mark another column done instead",
                ))
            }
            Some(true) if !current.done => {
                sqlx::query("UPDATE columns SET done = 0 WHERE set_id = $1 AND done = 1")
                    .bind(&set)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("UPDATE columns SET done = 1 WHERE id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
            _ => {}
        }
        // `$4` says whether the limit changes, `$5` is the new one (NULL: none).
        sqlx::query(
            "UPDATE columns SET name = COALESCE($2, name), accent = COALESCE($3, accent), \
             wip_limit = CASE WHEN $4 = 1 THEN $5 ELSE wip_limit END WHERE id = $1",
        )
        .bind(id)
        .bind(patch.name.map(Name::into_string))
        .bind(patch.color)
        .bind(i64::from(patch.wip_limit.is_some()))
        .bind(patch.wip_limit.flatten().map(|l| i64::from(l.get())))
        .execute(&mut *tx)
        .await?;
        let column = self.find_column(&mut *tx, id).await?;
        tx.emit(Change::new("column.updated", &ws, actor, &column, &[]));
        tx.commit().await?;
        Ok(column)
    }
}
