//! Workspaces ("tenants"), projects, and the first-run bootstrap.
//!
//! A new workspace is born with its tenant set To do / Doing / Done (Done the done column),
//! in the workspace's own transaction; a project's set starts empty, made by its first
//! column. `bootstrap` creates the workspace `Default`, the account `admin` and its token
//! when no account exists; servers started at once race on the unique names, and the loser
//! rolls back and finds the installation bootstrapped.

use serde::Serialize;
use serde_json::Value;
use sqlx::{Any, Executor};

use crate::access::{insert_account, issue_token, Account, Actor, IssuedToken, Role, TokenKind};
use crate::change::Change;
use crate::columns::Accent;
use crate::time::now;
use crate::validate::{self, Fields, FromJson, Input};

use crate::board::{Admin, Board};
use crate::error::{is_unique_violation, taken, Error, Result};
use crate::ids::{AccountId, ColumnId, ColumnSetId, ProjectId, WorkspaceId};
use crate::text::Name;

/// A workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Workspace {
    /// Its id (`tenantId` elsewhere on the wire).
    pub id: WorkspaceId,
    /// Its name.
    pub name: String,
}

/// A project of a workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Project {
    /// Its id.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub id: ProjectId,
    /// The workspace it belongs to.
    #[serde(rename = "tenantId")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub workspace_id: WorkspaceId,
    /// Its name.
    pub name: String,
}

/// The body of `POST /api/projects`: `{tenantId, name}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewProject {
    /// The workspace.
    pub workspace_id: WorkspaceId,
    /// Its name, unique in the workspace.
    pub name: Name,
}

impl FromJson for NewProject {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let tenant = f.required("tenantId", validate::id(WorkspaceId::parse));
        let name = f.required("name", validate::name);
        f.finish()?;
        Ok(NewProject {
            workspace_id: tenant.expect("checked"),
            name: name.expect("checked"),
        })
    }
}

/// The body of `PATCH /api/projects/[id]`: `{name}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectPatch {
    /// The new name.
    pub name: Name,
}

impl FromJson for ProjectPatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let name = f.required("name", validate::name);
        f.finish()?;
        Ok(ProjectPatch {
            name: name.expect("checked"),
        })
    }
}

/// What the first run created.
#[derive(Debug, Clone, Serialize)]
pub struct Bootstrap {
    /// The workspace `Default`.
    pub workspace: Workspace,
    /// The account `admin` (ADMIN in `Default`).
    pub account: Account,
    /// Its one token, shown once.
    pub token: IssuedToken,
}

/// The tenant set every workspace is born with: (name, accent, done).
const DEFAULT_COLUMNS: [(&str, Accent, bool); 3] = [
    ("To do", Accent::Slate, false),
    ("Doing", Accent::Blue, false),
    ("Done", Accent::Green, true),
];

/// Workspaces and projects: the operations of `workspaces.rs`.
impl Board {
    /// Creates a project with its own (empty) column set (ADMIN of the
    /// workspace): `project.created`. A name taken in the workspace is 409.
    pub async fn create_project(
        &self,
        actor: &Actor,
        input: impl Into<Input<NewProject>>,
    ) -> Result<Project> {
        let new = input.into().open()?;
        let workspace = &new.workspace_id;
        self.require(&self.pool, actor, workspace, Role::Admin)
            .await?;
        // The foreign key backs the existence check; every row is new.
        let mut tx = self.write_unlocked().await?;
        self.workspace_exists(&mut *tx, workspace).await?;
        let project = Project {
            id: ProjectId::new(),
            workspace_id: workspace.clone(),
            name: new.name.to_string(),
        };
        let at = now();
        sqlx::query(
            "INSERT INTO projects (id, workspace_id, name, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(&project.id)
        .bind(workspace)
        .bind(&project.name)
        .bind(&at)
        .execute(&mut *tx)
        .await
        .map_err(|e| taken(e.into(), "project", &project.name, " in this workspace"))?;
        sqlx::query(
            "INSERT INTO column_sets (id, workspace_id, project_id, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(ColumnSetId::new())
        .bind(workspace)
        .bind(&project.id)
        .bind(at)
        .execute(&mut *tx)
        .await?;
        tx.emit(Change::new(
            "project.created",
            workspace,
            actor,
            &project,
            &[],
        ));
        tx.commit().await?;
        Ok(project)
    }

    /// Renames a project (ADMIN of its workspace): `project.updated`. 404
    /// when there is none; a name taken in the workspace is 409.
    pub async fn rename_project(
        &self,
        actor: &Actor,
        id: &ProjectId,
        input: impl Into<Input<ProjectPatch>>,
    ) -> Result<Project> {
        let workspace: WorkspaceId =
            sqlx::query_scalar("SELECT workspace_id FROM projects WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
                .ok_or(Error::NotFound("project"))?;
        self.require(&self.pool, actor, &workspace, Role::Admin)
            .await?;
        let patch = input.into().open()?;
        let mut tx = self.write_unlocked().await?;
        let renamed = sqlx::query("UPDATE projects SET name = $2 WHERE id = $1")
            .bind(id)
            .bind(patch.name.as_str())
            .execute(&mut *tx)
            .await
            .map_err(|e| {
                taken(
                    e.into(),
                    "project",
                    patch.name.as_str(),
                    " in this workspace",
                )
            })?;
        if renamed.rows_affected() == 0 {
            return Err(Error::NotFound("project"));
        }
        let project = Project {
            id: id.clone(),
            workspace_id: workspace.clone(),
            name: patch.name.to_string(),
        };
        tx.emit(Change::new(
            "project.updated",
            &workspace,
            actor,
            &project,
            &[],
        ));
        tx.commit().await?;
        Ok(project)
    }

    /// `Ok` when the workspace exists, else 404.
    pub(crate) async fn workspace_exists<'e, E>(&self, exec: E, id: &WorkspaceId) -> Result<()>
    where
        E: Executor<'e, Database = Any>,
    {
        let found: Option<String> = sqlx::query_scalar("SELECT id FROM workspaces WHERE id = $1")
            .bind(id)
            .fetch_optional(exec)
            .await?;
        found.map(|_| ()).ok_or(Error::NotFound("workspace"))
    }
}

async fn insert_workspace(tx: &mut crate::store::WriteTx, name: &Name) -> Result<Workspace> {
    let name = name.to_string();
    let ws = Workspace {
        id: WorkspaceId::new(),
        name,
    };
    let at = now();
    let set = ColumnSetId::new();
    sqlx::query("INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3)")
        .bind(&ws.id)
        .bind(&ws.name)
        .bind(&at)
        .execute(&mut **tx)
        .await
        .map_err(|e| taken(e.into(), "workspace", &ws.name, ""))?;
    sqlx::query("INSERT INTO settings (workspace_id) VALUES ($1)")
        .bind(&ws.id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO column_sets (id, workspace_id, project_id, created_at) VALUES ($1, $2, NULL, $3)",
    )
    .bind(&set)
    .bind(&ws.id)
    .bind(&at)
    .execute(&mut **tx)
    .await?;
    // The default columns, in one statement.
    let rows: Vec<String> = (0..DEFAULT_COLUMNS.len())
        .map(|i| {
            let p = 4 * i + 3;
            format!("(${p}, $1, ${}, ${}, {i}, ${}, $2)", p + 1, p + 2, p + 3)
        })
        .collect();
    let sql = format!(
        "INSERT INTO columns (id, set_id, name, accent, position, done, created_at) VALUES {}",
        rows.join(", ")
    );
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(&set).bind(&at);
    for (name, accent, done) in DEFAULT_COLUMNS {
        q = q
            .bind(ColumnId::new())
            .bind(name)
            .bind(accent)
            .bind(i64::from(done));
    }
    q.execute(&mut **tx).await?;
    Ok(ws)
}

/// Workspaces and projects (the operator's side): the operations of `workspaces.rs`.
impl Admin<'_> {
    /// Creates a workspace with its settings (all defaults) and its tenant set
    /// `To do` (slate), `Doing` (blue), `Done` (green, the done column), in one
    /// transaction, so cards can be created in it at once.
    pub async fn create_workspace(&self, name: &Name) -> Result<Workspace> {
        // Nothing to lock: every row is new.
        let mut tx = self.board.write_unlocked().await?;
        let ws = insert_workspace(&mut tx, name).await?;
        tx.commit().await?;
        Ok(ws)
    }

    /// [`Admin::create_workspace`], with `admin` an ADMIN of it from the
    /// start, in the same transaction: a workspace nobody can use is never
    /// left behind. An unknown account is a 404 and creates nothing.
    pub async fn create_workspace_with_admin(
        &self,
        name: &Name,
        admin: &AccountId,
    ) -> Result<Workspace> {
        let mut tx = self.board.write_unlocked().await?;
        let exists: Option<String> = sqlx::query_scalar("SELECT id FROM accounts WHERE id = $1")
            .bind(admin)
            .fetch_optional(&mut *tx)
            .await?;
        exists.ok_or(Error::NotFound("account"))?;
        let ws = insert_workspace(&mut tx, name).await?;
        sqlx::query(
            "INSERT INTO memberships (workspace_id, account_id, role, created_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(&ws.id)
        .bind(admin)
        .bind(Role::Admin)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(ws)
    }

    /// Lists every workspace, oldest first.
    pub async fn list_workspaces(&self) -> Result<Vec<Workspace>> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT id, name FROM workspaces ORDER BY created_at, id")
                .fetch_all(&self.board.pool)
                .await?;
        Ok(rows
            .into_iter()
            .map(|(id, name)| Workspace {
                id: WorkspaceId::from_db(id),
                name,
            })
            .collect())
    }

    /// Creates a project in `workspace`, with its own (empty) column set.
    pub async fn create_project(&self, workspace: &WorkspaceId, name: &Name) -> Result<Project> {
        let new = NewProject {
            workspace_id: workspace.clone(),
            name: name.clone(),
        };
        self.board.create_project(&Actor::Operator, new).await
    }

    /// The first-run setup: when no account exists, creates the workspace
    /// `Default` (To do / Doing / Done, Done being the done column), the account
    /// `admin` with role ADMIN in it, and one token. Returns `None` when any
    /// account already exists; racing first starts create everything once.
    pub async fn bootstrap(&self) -> Result<Option<Bootstrap>> {
        // No row to lock: the unique account name `admin` is the backstop
        // when two first starts race (the loser rolls back).
        let mut tx = self.board.write_unlocked().await?;
        let accounts: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM accounts")
            .fetch_one(&mut *tx)
            .await?;
        if accounts > 0 {
            return Ok(None);
        }
        let workspace = match insert_workspace(&mut tx, &Name::parse("Default")?).await {
            // The name is taken: another process bootstrapped first (or a
            // workspace `Default` exists already). Roll everything back.
            Err(Error::Conflict(_)) => return Ok(None),
            other => other?,
        };
        let account = Account {
            id: AccountId::new(),
            name: "admin".into(),
        };
        match insert_account(&mut tx, &account).await {
            // Another process bootstrapped first: roll everything back.
            Err(e) if is_unique_violation(&e) => return Ok(None),
            other => other?,
        }
        sqlx::query(
            "INSERT INTO memberships (workspace_id, account_id, role, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(&workspace.id)
        .bind(&account.id)
        .bind(Role::Admin)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        let token = issue_token(&mut tx, &account.id, None, TokenKind::Personal, None).await?;
        tx.commit().await?;
        Ok(Some(Bootstrap {
            workspace,
            account,
            token,
        }))
    }
}
