//! Activity (api.md §29): a card's, `GET /api/cards/[id]/activity`, and a workspace's feed,
//! `GET /api/activity`.

use board_core::{ActivityQuery, CardId, SetQuery};
use serde::Deserialize;
use warp::http::StatusCode;

use super::{json, Answer, Request};

/// The query of the activity routes, as text.
#[derive(Debug, Default, Deserialize)]
struct ActivityParams {
    tenant: Option<String>,
    project: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
}

impl ActivityParams {
    fn page(&self) -> ActivityQuery {
        ActivityQuery::from_query(self.limit.as_deref(), self.cursor.as_deref())
    }
}

#[utoipa::path(
    get, path = "/api/cards/{id}/activity", operation_id = "cardActivity", tag = "cards",
    params(
        ("id" = board_core::CardId, Path, description = "The card"),
        ("limit" = Option<u16>, Query, minimum = 1, maximum = 200, description = "Items per page, 1 to 200 (default 50)"),
        ("cursor" = Option<String>, Query, description = "The nextCursor of the previous page"),
    ),
    responses(
        (status = 200, description = "The card's changes, newest first: its own, and its comments', attachments', links' and checklist items'", body = board_core::ActivityPage),
        (status = 422, description = "limit outside 1..=200, or a cursor the server did not make", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn card(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let p: ActivityParams = req.query();
    let page = req.board().card_activity(&actor, &id, &p.page()).await?;
    Ok(json(StatusCode::OK, &page))
}

#[utoipa::path(
    get, path = "/api/activity", operation_id = "workspaceActivity", tag = "cards",
    params(
        ("tenant" = board_core::WorkspaceId, Query, description = "The workspace"),
        ("project" = Option<String>, Query, description = "A project id: only its cards' changes"),
        ("limit" = Option<u16>, Query, minimum = 1, maximum = 200, description = "Items per page, 1 to 200 (default 50)"),
        ("cursor" = Option<String>, Query, description = "The nextCursor of the previous page"),
    ),
    responses(
        (status = 200, description = "The workspace's changes, newest first", body = board_core::ActivityPage),
        (status = 422, description = "tenant missing, limit outside 1..=200, a cursor the server did not make, or a project not of the workspace", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn feed(req: Request) -> Answer {
    let actor = req.actor().await?;
    let p: ActivityParams = req.query();
    let set = SetQuery::from_query(p.tenant.as_deref(), p.project.as_deref())?;
    let page = req
        .board()
        .workspace_activity(&actor, &set, &p.page())
        .await?;
    Ok(json(StatusCode::OK, &page))
}
