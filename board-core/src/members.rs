//! The members of a workspace as its members see them (api.md §17): the
//! names a UI puts on the account ids of comments, history, cards, links and
//! files; and their roles changed over HTTP (api.md §23), never leaving a
//! workspace without an ADMIN.

use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use crate::access::{Actor, Membership, Role};
use crate::board::{Admin, Board};
use crate::change::Change;
use crate::error::{Error, Result, Rule};
use crate::ids::{AccountId, WorkspaceId};
use crate::store::{Lock, WriteTx};
use crate::time::now;
use crate::validate::{self, Fields, FromJson, Input};

/// One member of a workspace (`GET /api/members`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceMember {
    /// The account.
    pub account_id: AccountId,
    /// The account's name.
    pub name: String,
    /// Its role in the workspace (`VIEWER`, `MEMBER`, `ADMIN`).
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "MEMBER"))]
    pub role: Role,
}

/// A workspace's members (api.md §17): the operations of `members.rs`.
impl Board {
    /// The members of `workspace`, ordered by name (Viewer).
    pub async fn workspace_members(
        &self,
        actor: &Actor,
        workspace: &WorkspaceId,
    ) -> Result<Vec<WorkspaceMember>> {
        self.require(&self.pool, actor, workspace, Role::Viewer)
            .await?;
        let rows: Vec<(AccountId, String, String)> = sqlx::query_as(
            "SELECT m.account_id, a.name, m.role FROM memberships m \
             JOIN accounts a ON a.id = m.account_id WHERE m.workspace_id = $1 \
             ORDER BY a.name, a.id",
        )
        .bind(workspace)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(account_id, name, role)| {
                let role = Role::parse(&role)
                    .ok_or_else(|| Error::Internal(format!("stored role {role:?}")))?;
                Ok(WorkspaceMember {
                    account_id,
                    name,
                    role,
                })
            })
            .collect()
    }
}

/// The body of `PATCH /api/members/[accountId]`: `{tenantId, role}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberPatch {
    /// The workspace.
    pub workspace_id: WorkspaceId,
    /// The new role.
    pub role: Role,
}

impl FromJson for MemberPatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let tenant = f.required("tenantId", validate::id(WorkspaceId::parse));
        let role = f.required("role", role);
        f.finish()?;
        Ok(MemberPatch {
            workspace_id: tenant.expect("checked"),
            role: role.expect("checked"),
        })
    }
}

/// A role as the wire writes it (`VIEWER`, `MEMBER`, `ADMIN`).
pub(crate) fn role(v: &Value) -> std::result::Result<Role, String> {
    v.as_str()
        .and_then(Role::parse)
        .ok_or_else(|| format!("Expected 'VIEWER' | 'MEMBER' | 'ADMIN', received {v}"))
}

/// What a membership change does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemberChange {
    /// Gives the account this role; `add`: also when it is not a member yet
    /// (else 404); `keep_higher`: a higher role it has stays (an invitation).
    Role {
        role: Role,
        add: bool,
        keep_higher: bool,
    },
    /// Takes the account out of the workspace.
    Remove,
}

/// A workspace's members (api.md §17): the operations of `members.rs`.
impl Board {
    /// Changes `account`'s membership of `ws` under the workspace's lock (the
    /// count of its admins is read there): `member.added`, `member.updated`
    /// or `member.removed` with `{accountId, name, role}`. Leaving the
    /// workspace without an ADMIN is 422 `LAST_ADMIN`. Removal unassigns the
    /// account from the workspace's cards (the foreign key's cascade, §24).
    /// Returns the membership after the change (before it, for a removal).
    pub(crate) async fn change_membership(
        &self,
        actor: &Actor,
        ws: &WorkspaceId,
        account: &AccountId,
        change: MemberChange,
    ) -> Result<WorkspaceMember> {
        let mut tx = self.write(Lock::Workspace(ws)).await?;
        let (member, changed) = apply_membership(&mut tx, actor, ws, account, change).await?;
        if changed {
            tx.commit().await?;
        }
        Ok(member)
    }

    /// The path's account, checked before the caller's role (404 comes
    /// before 403): 404 when no account has that id or, for an account
    /// caller, when it shares no workspace with the caller (so a member
    /// learns nothing of accounts it cannot see). The operator sees all.
    async fn member_reachable(&self, actor: &Actor, account: &AccountId) -> Result<()> {
        let found: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM accounts a WHERE a.id = $1 AND ($2 = '' OR EXISTS ( \
                 SELECT 1 FROM memberships m JOIN memberships mine \
                 ON mine.workspace_id = m.workspace_id \
                 WHERE m.account_id = a.id AND mine.account_id = $2))",
        )
        .bind(account)
        .bind(actor.account().map_or("", AccountId::as_str))
        .fetch_optional(&self.pool)
        .await?;
        found.map(|_| ()).ok_or(Error::NotFound("member"))
    }

    /// Gives a member of a workspace another role (ADMIN of it): 404 when
    /// the account is not a member, 422 `LAST_ADMIN` for the last ADMIN's
    /// demotion.
    pub async fn set_member_role(
        &self,
        actor: &Actor,
        account: &AccountId,
        input: impl Into<Input<MemberPatch>>,
    ) -> Result<WorkspaceMember> {
        self.member_reachable(actor, account).await?;
        let patch = input.into().open()?;
        let ws = &patch.workspace_id;
        self.require(&self.pool, actor, ws, Role::Admin).await?;
        let change = MemberChange::Role {
            role: patch.role,
            add: false,
            keep_higher: false,
        };
        self.change_membership(actor, ws, account, change).await
    }

    /// Takes a member out of a workspace (ADMIN of it): it loses the
    /// workspace at once and its card assignments there. 404 when it is not
    /// a member; 422 `LAST_ADMIN` for the last ADMIN.
    pub async fn remove_workspace_member(
        &self,
        actor: &Actor,
        ws: &WorkspaceId,
        account: &AccountId,
    ) -> Result<()> {
        self.member_reachable(actor, account).await?;
        self.require(&self.pool, actor, ws, Role::Admin).await?;
        self.change_membership(actor, ws, account, MemberChange::Remove)
            .await
            .map(|_| ())
    }
}

/// A workspace's members (api.md §17) (the operator's side): the operations of `members.rs`.
impl Admin<'_> {
    /// Gives `account` the `role` in `workspace` (replacing an earlier role):
    /// `member.added` or `member.updated`; the last ADMIN's demotion is 422
    /// `LAST_ADMIN`.
    pub async fn add_member(
        &self,
        workspace: &WorkspaceId,
        account: &AccountId,
        role: Role,
    ) -> Result<Membership> {
        self.board
            .workspace_exists(&self.board.pool, workspace)
            .await?;
        let change = MemberChange::Role {
            role,
            add: true,
            keep_higher: false,
        };
        let member = self
            .board
            .change_membership(&Actor::Operator, workspace, account, change)
            .await?;
        Ok(Membership {
            workspace_id: workspace.clone(),
            account_id: account.clone(),
            role: member.role,
        })
    }
}

/// [`Board::change_membership`] in `tx`, which holds the workspace's lock:
/// reads the membership and the count of ADMINs there, decides, writes, and
/// emits the event; the caller commits (an invitation's acceptance commits it
/// with the account it creates and the code it spends). True when it changed
/// anything.
pub(crate) async fn apply_membership(
    tx: &mut WriteTx,
    actor: &Actor,
    ws: &WorkspaceId,
    account: &AccountId,
    change: MemberChange,
) -> Result<(WorkspaceMember, bool)> {
    let row = sqlx::query(
        "SELECT a.name, m.role, (SELECT COUNT(*) FROM memberships x \
             WHERE x.workspace_id = $1 AND x.role = 'ADMIN') AS admins \
         FROM accounts a LEFT JOIN memberships m \
             ON m.account_id = a.id AND m.workspace_id = $1 WHERE a.id = $2",
    )
    .bind(ws)
    .bind(account)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or(Error::NotFound("account"))?;
    let name: String = row.try_get("name")?;
    let before = row
        .try_get::<Option<String>, _>("role")?
        .as_deref()
        .and_then(Role::parse);
    let admins: i64 = row.try_get("admins")?;
    let after = match (change, before) {
        (MemberChange::Remove, None) | (MemberChange::Role { add: false, .. }, None) => {
            return Err(Error::NotFound("member"))
        }
        (MemberChange::Remove, Some(_)) => None,
        (
            MemberChange::Role {
                role, keep_higher, ..
            },
            Some(b),
        ) if keep_higher => Some(role.max(b)),
        (MemberChange::Role { role, .. }, _) => Some(role),
    };
    if before == Some(Role::Admin) && after != Some(Role::Admin) && admins <= 1 {
        return Err(Error::rule(
            Rule::LastAdmin,
            "this is the workspace's last ADMIN: make another member ADMIN first",
        ));
    }
    let member = WorkspaceMember {
        account_id: account.clone(),
        name,
        role: after.or(before).unwrap_or(Role::Viewer),
    };
    let kind = match (before, after) {
        (b, a) if b == a => None,
        (None, Some(_)) => Some("member.added"),
        (Some(_), None) => Some("member.removed"),
        _ => Some("member.updated"),
    };
    match after {
        None => {
            sqlx::query("DELETE FROM memberships WHERE workspace_id = $1 AND account_id = $2")
                .bind(ws)
                .bind(account)
                .execute(&mut **tx)
                .await?;
        }
        Some(role) if kind.is_some() => {
            sqlx::query(
                "INSERT INTO memberships (workspace_id, account_id, role, created_at) \
                 VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (workspace_id, account_id) DO UPDATE SET role = excluded.role",
            )
            .bind(ws)
            .bind(account)
            .bind(role)
            .bind(now())
            .execute(&mut **tx)
            .await?;
        }
        Some(_) => {}
    }
    if let Some(kind) = kind {
        tx.emit(Change::new(kind, ws, actor, &member, &[]));
    }
    Ok((member, kind.is_some()))
}
