//! `GET /api/members?tenant=ID` (Viewer): the workspace's members, so that a
//! UI can put names on the account ids of contract §17.

use board_core::WorkspaceId;
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
