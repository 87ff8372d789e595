//! The members of a workspace as its members see them (contract §17): the
//! names a UI puts on the account ids of comments, history, cards, links and
//! files.

use crate::access::{Actor, Role};
use crate::error::{Error, Result};
use crate::ids::{AccountId, WorkspaceId};
use crate::Board;
use serde::Serialize;

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
