//! A workspace's labels (api.md §24): named, coloured, in order. Every
//! write of them takes the workspace's lock (`Lock::Workspace`, which
//! advances its version: the tag of a board, whose cards list their labels
//! in this order, follows). Names are unique in the workspace ignoring case
//! (`labels_name` over `name_key`, the name folded by Rust on both backends):
//! 409 `NAME_TAKEN`. A label's deletion takes it off every card (its rows of
//! `card_labels` go by foreign key) in its transaction.

use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::{FromRow, Row};

use crate::access::{Actor, Role};
use crate::board::{Admin, Board};
use crate::change::Change;
use crate::columns::{accent, Accent};
use crate::error::{is_unique_violation, Error, Result, ValidationErrors};
use crate::ids::{LabelId, WorkspaceId};
use crate::store::Lock;
use crate::text::Name;
use crate::time::now;
use crate::validate::{self, Fields, FromJson, Input};

/// The distance between two labels' positions.
const SPACING: i64 = 1 << 16;

/// A label of a workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Label {
    /// Its id.
    pub id: LabelId,
    /// Its workspace (`tenantId` on the wire).
    #[serde(rename = "tenantId")]
    pub workspace_id: WorkspaceId,
    /// Its name, unique in the workspace ignoring case.
    pub name: String,
    /// Its colour token.
    pub accent: Accent,
    /// Its place among the workspace's labels, ascending (order by it).
    pub position: i64,
}

impl<'r> FromRow<'r, AnyRow> for Label {
    fn from_row(row: &'r AnyRow) -> sqlx::Result<Label> {
        let accent: String = row.try_get("accent")?;
        Ok(Label {
            id: row.try_get("id")?,
            workspace_id: row.try_get("workspace_id")?,
            name: row.try_get("name")?,
            accent: Accent::parse(&accent).unwrap_or(Accent::Slate),
            position: row.try_get("position")?,
        })
    }
}

/// The columns of a label.
const LABEL: &str = "id, workspace_id, name, accent, position";

/// The body of `POST /api/labels`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLabel {
    /// The workspace (`tenantId`).
    pub workspace_id: WorkspaceId,
    /// Its name.
    pub name: Name,
    /// Its colour (`color`); default `slate`.
    pub accent: Accent,
}

impl FromJson for NewLabel {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let tenant = f.required("tenantId", validate::id(WorkspaceId::parse));
        let name = f.required("name", validate::name);
        let color = f.optional("color", accent);
        f.finish()?;
        Ok(NewLabel {
            workspace_id: tenant.expect("checked"),
            name: name.expect("checked"),
            accent: color.unwrap_or(Accent::Slate),
        })
    }
}

/// Where a label goes among the workspace's labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelPlace {
    /// Directly before this label.
    Before(LabelId),
    /// Directly after this label.
    After(LabelId),
}

/// The body of `PATCH /api/labels/[id]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelPatch {
    /// New name.
    pub name: Option<Name>,
    /// New colour (`color`).
    pub accent: Option<Accent>,
    /// New place (`beforeId` / `afterId`).
    pub place: Option<LabelPlace>,
}

impl FromJson for LabelPatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let name = f.optional("name", validate::name);
        let color = f.optional("color", accent);
        let before = f.optional("beforeId", validate::id(LabelId::parse));
        let after = f.optional("afterId", validate::id(LabelId::parse));
        let place = match (before, after) {
            (Some(_), Some(_)) => {
                f.form_error("Give either beforeId or afterId, not both");
                None
            }
            (Some(b), None) => Some(LabelPlace::Before(b)),
            (None, Some(a)) => Some(LabelPlace::After(a)),
            (None, None) => None,
        };
        f.finish()?;
        Ok(LabelPatch {
            name,
            accent: color,
            place,
        })
    }
}

/// A name as its unique key compares it: folded to lower case.
fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// A taken name as 409 `NAME_TAKEN`.
fn taken(e: Error, name: &str) -> Error {
    if is_unique_violation(&e) {
        Error::NameTaken(format!(
            "a label named {name:?} already exists in this workspace (names ignore case): \
             choose another name"
        ))
    } else {
        e
    }
}

/// A workspace's labels (api.md §24): the operations of `labels.rs`.
impl Board {
    /// The labels of workspace `ws`, in order (Viewer).
    pub async fn labels(&self, actor: &Actor, ws: &WorkspaceId) -> Result<Vec<Label>> {
        self.require(&self.pool, actor, ws, Role::Viewer).await?;
        let sql =
            format!("SELECT {LABEL} FROM labels WHERE workspace_id = $1 ORDER BY position, id");
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(ws)
            .fetch_all(&self.pool)
            .await?)
    }

    /// A label; 404 when there is none (or the actor does not reach its
    /// workspace: then 403).
    async fn label(&self, actor: &Actor, id: &LabelId, min: Role) -> Result<Label> {
        let sql = format!("SELECT {LABEL} FROM labels WHERE id = $1");
        let label: Label = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(Error::NotFound("label"))?;
        self.require(&self.pool, actor, &label.workspace_id, min)
            .await?;
        Ok(label)
    }

    /// Creates a label at the end of its workspace's labels (Member):
    /// `label.created`. The body is checked before access (its workspace
    /// comes from it).
    pub async fn create_label(
        &self,
        actor: &Actor,
        input: impl Into<Input<NewLabel>>,
    ) -> Result<Label> {
        let new = input.into().open()?;
        let ws = &new.workspace_id;
        self.require(&self.pool, actor, ws, Role::Member).await?;
        let mut tx = self.write(Lock::Workspace(ws)).await?;
        let sql = format!(
            "INSERT INTO labels (id, workspace_id, name, name_key, accent, position, created_at) \
             SELECT $1, $2, $3, $4, $5, COALESCE(MAX(position), 0) + {SPACING}, $6 \
             FROM labels WHERE workspace_id = $2 RETURNING {LABEL}"
        );
        let label: Label = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(LabelId::new())
            .bind(ws)
            .bind(&new.name)
            .bind(name_key(&new.name))
            .bind(new.accent.as_str())
            .bind(now())
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| taken(e.into(), &new.name))?;
        tx.emit(Change::new("label.created", ws, actor, &label, &[]));
        tx.commit().await?;
        Ok(label)
    }

    /// Renames, recolours and/or moves a label (Member): `label.updated`.
    /// `beforeId` / `afterId` name another label of its workspace (else 422).
    pub async fn update_label(
        &self,
        actor: &Actor,
        id: &LabelId,
        input: impl Into<Input<LabelPatch>>,
    ) -> Result<Label> {
        let before = self.label(actor, id, Role::Member).await?;
        let patch = input.into().open()?;
        let ws = &before.workspace_id;
        let mut tx = self.write(Lock::Workspace(ws)).await?;
        if let Some(place) = &patch.place {
            // The order as it is under the lock, with the label moved; every
            // label's position rewritten, SPACING apart (a workspace has few).
            let ids: Vec<LabelId> = sqlx::query_scalar(
                "SELECT id FROM labels WHERE workspace_id = $1 ORDER BY position, id",
            )
            .bind(ws)
            .fetch_all(&mut *tx)
            .await?;
            let mut order: Vec<LabelId> = ids.into_iter().filter(|l| l != id).collect();
            let (anchor, after) = match place {
                LabelPlace::Before(a) => (a, false),
                LabelPlace::After(a) => (a, true),
            };
            let at = order.iter().position(|l| l == anchor).ok_or_else(|| {
                let field = if after { "afterId" } else { "beforeId" };
                ValidationErrors::one(field, "not another label of this label's workspace")
            })?;
            order.insert(at + usize::from(after), id.clone());
            let cases: String = (0..order.len())
                .map(|i| format!(" WHEN ${} THEN {}", i + 2, (i as i64 + 1) * SPACING))
                .collect();
            let sql =
                format!("UPDATE labels SET position = CASE id{cases} END WHERE workspace_id = $1");
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(ws);
            for l in &order {
                q = q.bind(l);
            }
            q.execute(&mut *tx).await?;
        }
        let name = patch.name.as_ref().map(|n| n.as_str());
        let sql = format!(
            "UPDATE labels SET name = COALESCE($2, name), name_key = COALESCE($3, name_key), \
             accent = COALESCE($4, accent) WHERE id = $1 RETURNING {LABEL}"
        );
        let label: Option<Label> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(name)
            .bind(name.map(name_key))
            .bind(patch.accent.map(Accent::as_str))
            .fetch_optional(&mut *tx)
            .await
            .map_err(|e| taken(e.into(), name.unwrap_or_default()))?;
        let label = label.ok_or(Error::NotFound("label"))?;
        if label != before {
            tx.emit(Change::new("label.updated", ws, actor, &label, &[]));
            tx.commit().await?;
        }
        Ok(label)
    }

    /// Deletes a label and takes it off every card, in one transaction
    /// (Member): `label.deleted` with `{id}`.
    pub async fn delete_label(&self, actor: &Actor, id: &LabelId) -> Result<()> {
        let label = self.label(actor, id, Role::Member).await?;
        let ws = &label.workspace_id;
        let mut tx = self.write(Lock::Workspace(ws)).await?;
        let gone = sqlx::query("DELETE FROM labels WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if gone.rows_affected() == 0 {
            return Err(Error::NotFound("label"));
        }
        tx.emit(Change::deleted("label.deleted", ws, actor, id));
        tx.commit().await?;
        Ok(())
    }
}

/// A workspace's labels (api.md §24) (the operator's side): the operations of `labels.rs`.
impl Admin<'_> {
    /// The label `id_or_name` names: by its id alone, or by name in workspace
    /// `ws` (a name needs its workspace; an id in another workspace than `ws`
    /// is looked up as a name there). None is [`Error::Unknown`].
    pub async fn find_label_in(&self, ws: Option<&WorkspaceId>, id_or_name: &str) -> Result<Label> {
        if let Some(id) = LabelId::parse(id_or_name.trim()) {
            match self.board.label(&Actor::Operator, &id, Role::Viewer).await {
                Ok(l) if ws.is_none_or(|w| *w == l.workspace_id) => return Ok(l),
                Ok(_) | Err(Error::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        match ws {
            Some(ws) => self.find_label(ws, id_or_name).await,
            None => Err(Error::Unknown(format!(
                "no label has the id {id_or_name:?}; to find a label by name, give its \
                 workspace (--workspace)"
            ))),
        }
    }

    /// The label of workspace `ws` that `id_or_name` names: by id, or by name
    /// folded as names are kept unique (ignoring case). None is
    /// [`Error::Unknown`], listing the workspace's labels.
    pub async fn find_label(&self, ws: &WorkspaceId, id_or_name: &str) -> Result<Label> {
        let labels = self.board.labels(&Actor::Operator, ws).await?;
        let key = name_key(id_or_name.trim());
        if let Some(l) = labels
            .iter()
            .find(|l| l.id == id_or_name || name_key(&l.name) == key)
        {
            return Ok(l.clone());
        }
        let names: Vec<&str> = labels.iter().map(|l| l.name.as_str()).collect();
        let there = match names.is_empty() {
            true => "it has none (`board label create`)".to_string(),
            false => format!("its labels: {}", names.join(", ")),
        };
        Err(Error::Unknown(format!(
            "no label {id_or_name:?} in this workspace; {there}"
        )))
    }
}
