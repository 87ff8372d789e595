//! What an operator looks up and lists: workspaces, projects, accounts,
//! memberships, tokens, columns and cards found by id or by name, and the
//! listings of each. An unknown name is refused with the names that exist; an
//! ambiguous one with the candidates and their ids.

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::access::{Account, Actor, Role};
use crate::board::{Admin, Board};
use crate::cards::Card;
use crate::columns::Column;
use crate::error::{taken, Error, Result, ValidationErrors};
use crate::ids::{AccountId, CardId, ColumnId, ProjectId, TokenId, WorkspaceId};
use crate::query::SetQuery;
use crate::text::Name;
use crate::time::Timestamp;
use crate::workspaces::{Project, Workspace};

/// A membership with the names of its workspace and account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// The workspace (`tenantId` on the wire).
    #[serde(rename = "tenantId")]
    pub workspace_id: WorkspaceId,
    /// The workspace's name.
    pub workspace_name: String,
    /// The account.
    pub account_id: AccountId,
    /// The account's name.
    pub account_name: String,
    /// The role in that workspace.
    pub role: Role,
}

/// What is known of an issued token; never its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenInfo {
    /// Its id (enough to revoke it).
    pub id: TokenId,
    /// The account it authenticates.
    pub account_id: AccountId,
    /// The account's name.
    pub account_name: String,
    /// `personal` or `session`.
    pub kind: crate::access::TokenKind,
    /// Its label, if it has one.
    pub label: Option<String>,
    /// When it was issued.
    pub created_at: Timestamp,
    /// When it stops being accepted, if ever.
    pub expires_at: Option<Timestamp>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<Timestamp>,
}

/// Picks the item `given` names among `items`: by id, else by exact name, else
/// by name in any letter case. Several matches are a conflict that lists them
/// with their ids; none is [`Error::Unknown`] listing what exists.
fn pick<T: Clone>(
    what: &str,
    given: &str,
    items: &[T],
    id: impl Fn(&T) -> &str,
    name: impl Fn(&T) -> &str,
) -> Result<T> {
    if let Some(found) = items.iter().find(|i| id(i) == given) {
        return Ok(found.clone());
    }
    let exact: Vec<&T> = items.iter().filter(|i| name(i) == given).collect();
    let matches = if exact.is_empty() {
        items
            .iter()
            .filter(|i| name(i).to_lowercase() == given.to_lowercase())
            .collect()
    } else {
        exact
    };
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] if items.is_empty() => Err(Error::Unknown(format!(
            "no {what} is named {given:?}: there is none yet"
        ))),
        [] => {
            let names: Vec<&str> = items.iter().map(&name).collect();
            Err(Error::Unknown(format!(
                "no {what} is named {given:?}; there are: {}",
                names.join(", ")
            )))
        }
        several => {
            let list: Vec<String> = several
                .iter()
                .map(|i| format!("{} ({})", name(i), id(i)))
                .collect();
            Err(Error::Conflict(format!(
                "several {what}s are named {given:?}: {}; give the id",
                list.join(", ")
            )))
        }
    }
}

/// Lookups and listings: the operations of `directory.rs`.
impl Board {
    /// Finds a column by id, or by name in the set in effect for a card of
    /// `project` (the tenant set without one) of `workspace`. Without a
    /// workspace, only an id finds a column.
    pub async fn find_column_in(
        &self,
        actor: &Actor,
        workspace: Option<&WorkspaceId>,
        project: Option<&ProjectId>,
        id_or_name: &str,
    ) -> Result<Column> {
        if let Some(column) = self.column_by_id(id_or_name).await? {
            let (ws, _) = self.column_home(&self.pool, &column.id).await?;
            self.require(&self.pool, actor, &ws, Role::Viewer).await?;
            return Ok(column);
        }
        let Some(workspace) = workspace else {
            return Err(Error::Unknown(format!(
                "no column has the id {id_or_name:?}; to find a column by name, give its workspace"
            )));
        };
        self.require(&self.pool, actor, workspace, Role::Viewer)
            .await?;
        let set = self
            .set_in_effect(
                &self.pool,
                workspace,
                project.map(ProjectId::as_str),
                "project",
            )
            .await?;
        let columns = self.set_columns(&self.pool, &set).await?;
        pick(
            "column",
            id_or_name,
            &columns,
            |c| c.id.as_str(),
            |c| &c.name,
        )
    }

    /// Finds a column by id, or by name in the set in effect for `card` (where
    /// a move can take it).
    pub async fn find_column_for(
        &self,
        actor: &Actor,
        card: &CardId,
        id_or_name: &str,
    ) -> Result<Column> {
        let card = self.card(actor, card).await?;
        self.find_column_in(
            actor,
            Some(&card.workspace_id),
            card.project_id.as_ref(),
            id_or_name,
        )
        .await
    }

    /// The columns of the set `column` belongs to, in order (Viewer).
    pub async fn column_set(&self, actor: &Actor, column: &ColumnId) -> Result<Vec<Column>> {
        let (ws, set) = self.column_home(&self.pool, column).await?;
        self.require(&self.pool, actor, &ws, Role::Viewer).await?;
        self.set_columns(&self.pool, &set).await
    }

    /// A column by id, if `id` is one.
    async fn column_by_id(&self, id: &str) -> Result<Option<Column>> {
        let Some(id) = ColumnId::parse(id) else {
            return Ok(None);
        };
        match self.find_column(&self.pool, &id).await {
            Ok(c) => Ok(Some(c)),
            Err(Error::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// How many cards each column of `workspace` holds (archived ones left out), every set's columns,
    /// in one statement (Viewer): what `board columns list` shows beside the
    /// WIP limits.
    pub async fn card_counts(
        &self,
        actor: &Actor,
        workspace: &WorkspaceId,
    ) -> Result<Vec<(ColumnId, u64)>> {
        self.require(&self.pool, actor, workspace, Role::Viewer)
            .await?;
        let rows: Vec<(ColumnId, i64)> = sqlx::query_as(
            "SELECT c.id, (SELECT COUNT(*) FROM cards k WHERE k.column_id = c.id \
                 AND k.archived_at IS NULL) \
             FROM columns c JOIN column_sets s ON s.id = c.set_id WHERE s.workspace_id = $1",
        )
        .bind(workspace)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, n)| (id, u64::try_from(n).unwrap_or(0)))
            .collect())
    }

    /// The cards of the set in effect for `project` (the tenant set without
    /// one), column by column in order, or only those of `column` (Viewer).
    pub async fn list_cards(
        &self,
        actor: &Actor,
        workspace: &WorkspaceId,
        project: Option<&ProjectId>,
        column: Option<&ColumnId>,
    ) -> Result<Vec<Card>> {
        let view = self
            .board(
                actor,
                &SetQuery::workspace(workspace.clone()).project(project.cloned()),
            )
            .await?;
        if let Some(c) = column {
            if !view.columns.iter().any(|b| b.column.id == *c) {
                return Err(ValidationErrors::one(
                    "column",
                    "not a column of the set in effect",
                ));
            }
        }
        Ok(view
            .columns
            .into_iter()
            .filter(|b| column.is_none_or(|c| b.column.id == *c))
            .flat_map(|b| b.cards)
            .collect())
    }
}

/// Lookups and listings (the operator's side): the operations of `directory.rs`.
impl Admin<'_> {
    /// Finds a workspace by id or by name (names are unique; a name in another
    /// letter case is accepted when only one workspace has it).
    pub async fn find_workspace(&self, id_or_name: &str) -> Result<Workspace> {
        let all = self.list_workspaces().await?;
        pick(
            "workspace",
            id_or_name,
            &all,
            |w| w.id.as_str(),
            |w| &w.name,
        )
    }

    /// Renames a workspace; the name must not be taken.
    pub async fn rename_workspace(&self, id: &WorkspaceId, name: &Name) -> Result<Workspace> {
        let name = name.to_string();
        // One statement; the unique index decides a race.
        let mut tx = self.board.write_unlocked().await?;
        let done = sqlx::query("UPDATE workspaces SET name = $2 WHERE id = $1")
            .bind(id)
            .bind(&name)
            .execute(&mut *tx)
            .await
            .map_err(|e| taken(e.into(), "workspace", &name, ""))?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound("workspace"));
        }
        tx.commit().await?;
        Ok(Workspace {
            id: id.clone(),
            name,
        })
    }

    /// The projects of a workspace, oldest first.
    pub async fn list_projects(&self, workspace: &WorkspaceId) -> Result<Vec<Project>> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT id, name FROM projects WHERE workspace_id = $1 ORDER BY created_at, id",
        )
        .bind(workspace)
        .fetch_all(&self.board.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, name)| Project {
                id: ProjectId::from_db(id),
                workspace_id: workspace.clone(),
                name,
            })
            .collect())
    }

    /// Finds a project of `workspace` by id or by name.
    pub async fn find_project(&self, workspace: &WorkspaceId, id_or_name: &str) -> Result<Project> {
        let all = self.list_projects(workspace).await?;
        pick("project", id_or_name, &all, |p| p.id.as_str(), |p| &p.name)
    }

    /// Every account, by name.
    pub async fn list_accounts(&self) -> Result<Vec<Account>> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT id, name FROM accounts ORDER BY name, id")
                .fetch_all(&self.board.pool)
                .await?;
        Ok(rows
            .into_iter()
            .map(|(id, name)| Account {
                id: AccountId::from_db(id),
                name,
            })
            .collect())
    }

    /// Finds an account by id or by name.
    pub async fn find_account(&self, id_or_name: &str) -> Result<Account> {
        let all = self.list_accounts().await?;
        pick("account", id_or_name, &all, |a| a.id.as_str(), |a| &a.name)
    }

    /// The memberships of `workspace`, or of every workspace, by workspace then
    /// account name.
    pub async fn list_members(&self, workspace: Option<&WorkspaceId>) -> Result<Vec<Member>> {
        let rows: Vec<AnyRow> = sqlx::query(
            "SELECT m.workspace_id, w.name AS workspace_name, m.account_id, \
                    a.name AS account_name, m.role \
             FROM memberships m JOIN workspaces w ON w.id = m.workspace_id \
             JOIN accounts a ON a.id = m.account_id \
             WHERE $1 = '' OR m.workspace_id = $1 \
             ORDER BY w.created_at, w.id, a.name",
        )
        .bind(workspace.map_or("", WorkspaceId::as_str))
        .fetch_all(&self.board.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let role: String = r.try_get("role")?;
                Ok(Member {
                    workspace_id: WorkspaceId::from_db(r.try_get("workspace_id")?),
                    workspace_name: r.try_get("workspace_name")?,
                    account_id: AccountId::from_db(r.try_get("account_id")?),
                    account_name: r.try_get("account_name")?,
                    role: Role::parse(&role).unwrap_or(Role::Viewer),
                })
            })
            .collect()
    }

    /// Takes `account` out of `workspace` (`member.removed`); 404 when it was
    /// not a member, 422 `LAST_ADMIN` for the last ADMIN. Its tokens stay
    /// valid for its other workspaces.
    pub async fn remove_member(&self, workspace: &WorkspaceId, account: &AccountId) -> Result<()> {
        let change = crate::members::MemberChange::Remove;
        self.board
            .change_membership(&Actor::Operator, workspace, account, change)
            .await
            .map(|_| ())
    }

    /// Revokes every open session of `account` (its personal tokens stay):
    /// how many there were.
    pub async fn revoke_sessions(&self, account: &AccountId) -> Result<u64> {
        let mut tx = self.board.write_unlocked().await?;
        let ended = crate::people::end_sessions(&mut tx, account, None).await?;
        tx.commit().await?;
        Ok(ended)
    }

    /// Issued tokens, of `account` or of every account, newest first. Secrets
    /// are never stored, so never shown.
    pub async fn list_tokens(&self, account: Option<&AccountId>) -> Result<Vec<TokenInfo>> {
        let rows: Vec<AnyRow> = sqlx::query(
            "SELECT t.id, t.account_id, a.name AS account_name, t.kind, t.label, t.created_at, \
                    t.expires_at, t.revoked_at \
             FROM tokens t JOIN accounts a ON a.id = t.account_id \
             WHERE $1 = '' OR t.account_id = $1 ORDER BY t.created_at DESC, t.id",
        )
        .bind(account.map_or("", AccountId::as_str))
        .fetch_all(&self.board.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(TokenInfo {
                    id: r.try_get("id")?,
                    account_id: AccountId::from_db(r.try_get("account_id")?),
                    account_name: r.try_get("account_name")?,
                    kind: crate::access::TokenKind::from_db(&r.try_get::<String, _>("kind")?),
                    label: r.try_get("label")?,
                    created_at: r.try_get("created_at")?,
                    expires_at: r.try_get("expires_at")?,
                    revoked_at: r.try_get("revoked_at")?,
                })
            })
            .collect()
    }
}
