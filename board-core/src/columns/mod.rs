//! Column sets: listing, creation at the end of a set, the done mark, and the
//! resolution of the set in effect for a card.
//!
//! Invariants (held by `columns_position` / `columns_done` unique indexes and by
//! locking the set row in every write): positions are unique in a set, and a
//! non-empty set has exactly one done column.

mod column;
mod delete;
mod listing;
mod order;
mod update;

pub(crate) use column::accent;
pub(crate) use listing::Listings;

pub use column::{Accent, Column};
pub use delete::{CardsFate, ColumnDeleted, DeleteColumn, CONFIRM_DELETE_CARDS};
pub use order::{ColumnOrder, MAX_REORDER};
pub use update::ColumnPatch;

use std::sync::Arc;

use serde_json::Value;
use sqlx::{Any, Executor, Row};

use crate::access::{
    check_role, check_role_of, token_from, Actor, Bearer, Caller, Role, TOKEN_COLUMNS,
};
use crate::board::Board;
use crate::change::Change;
use crate::error::{Error, Result};
use crate::etag::{Conditional, ETag, IfNoneMatch};
use crate::ids::{ColumnId, ColumnSetId, ProjectId, WorkspaceId};
use crate::query::SetQuery;
use crate::sets;
use crate::settings;
use crate::store::{Lock, WriteTx};
use crate::text::Name;
use crate::time::now;
use crate::validate::{self, Fields, FromJson, Input};
use crate::wip::WipLimit;
use column::{column_from_row, COLUMN_SELECT};
use listing::Listing;

/// The body of `POST /api/columns`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(rename_all = "camelCase")
)]
pub struct NewColumn {
    /// The workspace (`tenantId`).
    #[cfg_attr(feature = "openapi", schema(rename = "tenantId"))]
    pub workspace_id: WorkspaceId,
    /// The project whose set gets the column; `None` for the tenant set.
    pub project_id: Option<ProjectId>,
    /// The name (trimmed, 1..=100 characters).
    pub name: Name,
    /// The accent (`color`); default `slate`.
    #[cfg_attr(feature = "openapi", schema(required = false, default = "slate"))]
    pub color: Accent,
    /// Whether the new column takes the done mark.
    #[cfg_attr(feature = "openapi", schema(required = false, default = false))]
    pub done: bool,
    /// The most cards it may hold (`wipLimit`, 1..=10000); absent or `null`: no limit.
    #[cfg_attr(feature = "openapi", schema(required = false))]
    pub wip_limit: Option<WipLimit>,
}

impl FromJson for NewColumn {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let tenant = f.required("tenantId", validate::id(WorkspaceId::parse));
        let project = f.nullable("projectId", validate::id(ProjectId::parse));
        let name = f.required("name", validate::name);
        let color = f.optional("color", accent);
        let done = f.optional("done", validate::boolean);
        let wip_limit = f.nullable("wipLimit", WipLimit::from_json);
        f.finish()?;
        Ok(NewColumn {
            workspace_id: tenant.expect("checked"),
            project_id: project,
            name: name.expect("checked"),
            color: color.unwrap_or(Accent::Slate),
            done: done.unwrap_or(false),
            wip_limit: wip_limit.flatten(),
        })
    }
}

impl NewColumn {
    /// A column named `name` at the end of the tenant set of `workspace`,
    /// `slate`, not the done column.
    ///
    /// ```
    /// # let ws = board_core::WorkspaceId::parse("ckv7q2x0a0000abcdefghijk").unwrap();
    /// use board_core::{Accent, Name, NewColumn};
    /// let review = NewColumn::new(ws, Name::parse("Review")?).color(Accent::Violet);
    /// assert!(!review.done);
    /// # Ok::<(), board_core::Error>(())
    /// ```
    pub fn new(workspace: WorkspaceId, name: Name) -> NewColumn {
        NewColumn {
            workspace_id: workspace,
            project_id: None,
            name,
            color: Accent::Slate,
            done: false,
            wip_limit: None,
        }
    }

    /// In the set of `project` (`None`: the tenant set).
    pub fn in_project(mut self, project: Option<ProjectId>) -> NewColumn {
        self.project_id = project;
        self
    }

    /// With the accent `color`.
    pub fn color(mut self, color: Accent) -> NewColumn {
        self.color = color;
        self
    }

    /// Taking the set's done mark.
    pub fn done(mut self) -> NewColumn {
        self.done = true;
        self
    }

    /// With the WIP limit `limit` (`None`: no limit).
    pub fn wip_limit(mut self, limit: Option<WipLimit>) -> NewColumn {
        self.wip_limit = limit;
        self
    }
}

/// The order of a workspace's columns: the tenant set, then each project set
/// in project creation order, each by position (`p` is the set's project).
const WORKSPACE_ORDER: &str = "ORDER BY CASE WHEN s.project_id IS NULL THEN 0 ELSE 1 END, \
     p.created_at, p.id, c.position";

/// Columns: list and create: the operations of `columns/mod.rs`.
impl Board {
    /// Opens a write of `set`'s columns: the workspace's row first, whose
    /// version keys every process's listing of its columns (`listing`), then
    /// the set's. Parent first, as every lock: links take the workspace's row
    /// alone, and no write takes it after a set's.
    pub(crate) async fn write_columns(
        &self,
        ws: &WorkspaceId,
        set: &ColumnSetId,
    ) -> Result<WriteTx> {
        let mut tx = self.write(Lock::Workspace(ws)).await?;
        tx.lock(Lock::ColumnSet(set)).await?;
        Ok(tx)
    }

    /// The columns of one set, by position.
    pub(crate) async fn set_columns<'e, E>(&self, exec: E, set: &ColumnSetId) -> Result<Vec<Column>>
    where
        E: Executor<'e, Database = Any>,
    {
        let sql = format!("{COLUMN_SELECT} WHERE c.set_id = $1 ORDER BY c.position");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(set)
            .fetch_all(exec)
            .await?;
        rows.iter().map(column_from_row).collect()
    }

    /// Lists columns (Viewer).
    ///
    /// - a workspace and a project: the set in effect for a card of that
    ///   project (a project outside the workspace is a 422 on `project`);
    /// - a workspace alone: the tenant set, then each project set in project
    ///   creation order;
    /// - no query: the same for every workspace the actor reaches.
    pub async fn list_columns(
        &self,
        actor: &Actor,
        query: Option<&SetQuery>,
    ) -> Result<Vec<Column>> {
        let Some(query) = query else {
            // Every workspace the actor reaches, in one statement.
            return match actor {
                Actor::Operator => self.columns_where("TRUE", None).await,
                Actor::Account(_) | Actor::Session(_) => {
                    let a = actor.account().expect("an account");
                    let reached = "s.workspace_id IN \
                        (SELECT workspace_id FROM memberships WHERE account_id = $1)";
                    self.columns_where(reached, Some(a.as_ref())).await
                }
            };
        };
        let ws = query.workspace_id();
        match query.project_key() {
            Some(p) => {
                self.require(&self.pool, actor, ws, Role::Viewer).await?;
                let set = self
                    .set_in_effect(&self.pool, ws, Some(p), "project")
                    .await?;
                self.set_columns(&self.pool, &set).await
            }
            None => self.workspace_columns(actor, ws).await,
        }
    }

    /// [`Board::list_columns`] with the list's tag (api.md §22), or only the
    /// tag when `cond` names it (Viewer). A workspace's or every workspace's
    /// columns are one statement: their tag is the hash of their JSON. A
    /// project's set in effect is two: its tag is read with the set, before
    /// the columns (the set's version, advanced by every column write under
    /// its lock, and the settings' version, since `columnScope` decides the
    /// set), so a 304 costs one statement either way. A [`Caller::Bearer`]'s
    /// token is checked, for a workspace's columns, by the statement that
    /// reads the workspace's version (the listing this process keeps for it,
    /// `listing`); elsewhere it is authenticated first.
    pub async fn list_columns_if<'c>(
        &self,
        caller: impl Into<Caller<'c>>,
        query: Option<&SetQuery>,
        cond: &IfNoneMatch,
    ) -> Result<Conditional<Vec<Column>>> {
        let caller = caller.into();
        if let (Caller::Bearer(bearer), Some(q)) = (caller, query) {
            if q.project_key().is_none() {
                let listing = self.workspace_listing(bearer, q.workspace_id()).await?;
                let columns = async { Ok(listing.columns.clone()) };
                return Conditional::answer(listing.tag.clone(), cond, columns).await;
            }
        }
        let actor = self.actor_of(caller).await?;
        let actor = actor.as_ref();
        match query {
            Some(q) if q.project_key().is_some() => {
                let ws = q.workspace_id();
                self.require(&self.pool, actor, ws, Role::Viewer).await?;
                let (set, versions) = self
                    .set_in_effect_versioned(&self.pool, ws, q.project_key(), "project", false)
                    .await?;
                let tag = ETag::of_versions("project columns", set.as_ref(), &versions);
                Conditional::answer(tag, cond, self.set_columns(&self.pool, &set)).await
            }
            _ => {
                let columns = self.list_columns(actor, query).await?;
                Conditional::of_payload("columns", cond, columns)
            }
        }
    }

    /// The listing of `ws` for `bearer` (`listing`): the token checked and the
    /// workspace's version read in one statement (401 for a token that is not
    /// valid, 403 when its account is not a member of `ws`), then the
    /// columns, read only when this process holds no listing of that version.
    async fn workspace_listing(&self, bearer: &Bearer, ws: &WorkspaceId) -> Result<Arc<Listing>> {
        let sql = format!(
            "SELECT {TOKEN_COLUMNS}, w.version AS ws_version {}",
            token_from(
                "$2",
                "",
                "$1",
                "LEFT JOIN workspaces w ON w.id = $1 AND m.role IS NOT NULL"
            )
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(ws)
            .bind(bearer.id())
            .fetch_optional(&self.pool)
            .await?;
        let role = bearer.verified_role(row.as_ref())?;
        self.note_use(bearer.id());
        check_role_of(role, Role::Viewer)?;
        let version: Option<i64> = match &row {
            Some(row) => row.try_get("ws_version")?,
            None => None,
        };
        let version = version.ok_or(Error::NotFound("workspace"))?;
        if let Some(listing) = self.local::<Listings>().at(ws, version) {
            return Ok(listing);
        }
        // Read after the version: never older than it. The token was checked
        // by the statement that read the version.
        let columns = self
            .columns_where("s.workspace_id = $1", Some(ws.as_ref()))
            .await?;
        let listing = Arc::new(Listing::new(version, columns)?);
        self.local::<Listings>().keep(ws, listing.clone());
        Ok(listing)
    }

    /// Every set of `ws` with the actor's reach checked in the same statement
    /// (a workspace always has its tenant set's columns; without a row, the
    /// reach is checked on its own).
    async fn workspace_columns(&self, actor: &Actor, ws: &WorkspaceId) -> Result<Vec<Column>> {
        let account = match actor {
            Actor::Operator => {
                return self
                    .columns_where("s.workspace_id = $1", Some(ws.as_ref()))
                    .await
            }
            Actor::Session(_) => {
                self.require(&self.pool, actor, ws, Role::Viewer).await?;
                return self
                    .columns_where("s.workspace_id = $1", Some(ws.as_ref()))
                    .await;
            }
            Actor::Account(a) => a,
        };
        let sql = format!(
            "SELECT c.id, s.project_id, c.name, c.accent, c.position, c.done, c.wip_limit, \
                    (SELECT role FROM memberships m WHERE m.workspace_id = $1 AND m.account_id = $2) AS role \
             FROM columns c JOIN column_sets s ON s.id = c.set_id \
             LEFT JOIN projects p ON p.id = s.project_id WHERE s.workspace_id = $1 {WORKSPACE_ORDER}"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(ws)
            .bind(account)
            .fetch_all(&self.pool)
            .await?;
        let Some(first) = rows.first() else {
            self.require(&self.pool, actor, ws, Role::Viewer).await?;
            return Ok(Vec::new());
        };
        let role: Option<String> = first.try_get("role")?;
        check_role(role.as_deref(), Role::Viewer)?;
        rows.iter().map(column_from_row).collect()
    }

    /// The columns of the workspaces `filter` selects (one statement): by
    /// workspace creation, then the tenant set, then each project set in project
    /// creation order, each by position.
    async fn columns_where(&self, filter: &str, arg: Option<&str>) -> Result<Vec<Column>> {
        let sql = format!(
            "{COLUMN_SELECT} JOIN workspaces w ON w.id = s.workspace_id \
             LEFT JOIN projects p ON p.id = s.project_id WHERE {filter} \
             ORDER BY w.created_at, w.id, {}",
            &WORKSPACE_ORDER["ORDER BY ".len()..]
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        if let Some(arg) = arg {
            q = q.bind(arg);
        }
        let rows = q.fetch_all(&self.pool).await?;
        rows.iter().map(column_from_row).collect()
    }

    /// Creates a column at the end of its set (Member). The first column of an
    /// empty set becomes its done column whatever `done` says; `done: true`
    /// moves the mark from the set's previous done column.
    pub async fn create_column(
        &self,
        actor: &Actor,
        input: impl Into<Input<NewColumn>>,
    ) -> Result<Column> {
        let new = input.into().open()?;
        let ws = &new.workspace_id;
        self.require(&self.pool, actor, ws, Role::Member).await?;
        self.require_column_management(&self.pool, ws).await?;
        // A set is never deleted: its id can be read before the lock.
        let set = match &new.project_id {
            None => sets::tenant_set(&self.pool, ws).await?,
            Some(p) => sets::project_set(&self.pool, ws, p).await?,
        };
        let mut tx = self.write_columns(ws, &set).await?;
        let (count, next): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COALESCE(MAX(position) + 1, 0) FROM columns WHERE set_id = $1",
        )
        .bind(&set)
        .fetch_one(&mut *tx)
        .await?;
        let done = new.done || count == 0;
        let column = Column {
            id: ColumnId::new(),
            project_id: new.project_id,
            name: new.name.into_string(),
            accent: new.color,
            position: next,
            done,
            wip_limit: new.wip_limit,
        };
        insert_column(&mut tx, &set, &column).await?;
        tx.emit(Change::new("column.created", ws, actor, &column, &[]));
        tx.commit().await?;
        Ok(column)
    }

    /// The workspace and set of a column; 404 when it does not exist.
    pub(crate) async fn column_home<'e, E>(
        &self,
        exec: E,
        id: &ColumnId,
    ) -> Result<(WorkspaceId, ColumnSetId)>
    where
        E: Executor<'e, Database = Any>,
    {
        let home: Option<(WorkspaceId, ColumnSetId)> = sqlx::query_as(
            "SELECT s.workspace_id, c.set_id FROM columns c JOIN column_sets s ON s.id = c.set_id \
             WHERE c.id = $1",
        )
        .bind(id)
        .fetch_optional(exec)
        .await?;
        home.ok_or(Error::NotFound("column"))
    }

    /// A column; 404 when it does not exist.
    pub(crate) async fn find_column<'e, E>(&self, exec: E, id: &ColumnId) -> Result<Column>
    where
        E: Executor<'e, Database = Any>,
    {
        let sql = format!("{COLUMN_SELECT} WHERE c.id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(exec)
            .await?;
        row.as_ref()
            .map(column_from_row)
            .transpose()?
            .ok_or(Error::NotFound("column"))
    }

    /// 403 `COLUMN_MANAGEMENT_DISABLED` when the workspace locks column editing.
    pub(crate) async fn require_column_management<'e, E>(
        &self,
        exec: E,
        ws: &WorkspaceId,
    ) -> Result<()>
    where
        E: Executor<'e, Database = Any>,
    {
        if settings::load(exec, ws).await?.column_management {
            Ok(())
        } else {
            Err(Error::ColumnManagementDisabled)
        }
    }
}

/// Inserts `column` into `set`; when it is `done`, first takes the mark from
/// the set's done column. The caller holds the set's lock.
pub(crate) async fn insert_column(
    tx: &mut WriteTx,
    set: &ColumnSetId,
    column: &Column,
) -> Result<()> {
    if column.done {
        sqlx::query("UPDATE columns SET done = 0 WHERE set_id = $1 AND done = 1")
            .bind(set)
            .execute(&mut **tx)
            .await?;
    }
    sqlx::query(
        "INSERT INTO columns (id, set_id, name, accent, position, done, wip_limit, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(&column.id)
    .bind(set)
    .bind(&column.name)
    .bind(column.accent)
    .bind(column.position)
    .bind(i64::from(column.done))
    .bind(column.wip_limit.map(|l| i64::from(l.get())))
    .bind(now())
    .execute(&mut **tx)
    .await?;
    Ok(())
}
