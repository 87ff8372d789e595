//! `GET /api/members?tenant=ID` (Viewer): the workspace's members, so that a
//! UI can put names on the account ids of api.md §17; `PATCH|DELETE
//! /api/members/[accountId]` (ADMIN): roles and removal (api.md §23).

use board_core::{AccountId, Input, WorkspaceId};
use warp::http::StatusCode;

use super::{json, Answer, Request, SetParams};

#[utoipa::path(
    get, path = "/api/members", operation_id = "listMembers", tag = "members",
    params(("tenant" = board_core::WorkspaceId, Query, description = "The workspace")),
    responses(
        (status = 200, description = "The workspace's members, ordered by name", body = Vec<board_core::WorkspaceMember>),
        (status = 422, description = "The query parameter `tenant` is missing", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let q: SetParams = req.query();
    let tenant = WorkspaceId::from_query(q.tenant.as_deref())?;
    let members = req.board().workspace_members(&actor, &tenant).await?;
    Ok(json(StatusCode::OK, &members))
}

#[utoipa::path(
    patch, path = "/api/members/{accountId}", operation_id = "updateMember", tag = "members",
    params(("accountId" = board_core::AccountId, Path, description = "The member's account")),
    request_body(content = inline(MemberPatchBody), description = "The workspace and the new role"),
    responses(
        (status = 200, description = "The member with its new role", body = board_core::WorkspaceMember),
        (status = 403, description = "FORBIDDEN: only an ADMIN of the workspace changes roles", body = crate::error::ErrorBody),
        (status = 404, description = "The account is not a member of the workspace", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or LAST_ADMIN: the workspace's last ADMIN cannot be demoted", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let account = req.path_id::<AccountId>()?;
    let bytes = req.json_body().await?;
    let member = req
        .board()
        .set_member_role(&actor, &account, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &member))
}

/// The body of `PATCH /api/members/{accountId}` (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct MemberPatchBody {
    /// The workspace.
    #[schema(rename = "tenantId")]
    tenant_id: String,
    /// `VIEWER`, `MEMBER` or `ADMIN`.
    role: String,
}

#[utoipa::path(
    delete, path = "/api/members/{accountId}", operation_id = "removeMember", tag = "members",
    params(
        ("accountId" = board_core::AccountId, Path, description = "The member's account"),
        ("tenant" = board_core::WorkspaceId, Query, description = "The workspace"),
    ),
    responses(
        (status = 200, description = "The account is out of the workspace (its requests there get 403, its streams end within 60 s, its assignments there go)", body = super::Deleted),
        (status = 403, description = "FORBIDDEN: only an ADMIN of the workspace removes members", body = crate::error::ErrorBody),
        (status = 404, description = "The account is not a member of the workspace", body = crate::error::ErrorBody),
        (status = 422, description = "`tenant` is missing, or LAST_ADMIN: the workspace's last ADMIN cannot be removed", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    let account = req.path_id::<AccountId>()?;
    let q: SetParams = req.query();
    let tenant = WorkspaceId::from_query(q.tenant.as_deref())?;
    req.board()
        .remove_workspace_member(&actor, &tenant, &account)
        .await?;
    Ok(super::deleted())
}
