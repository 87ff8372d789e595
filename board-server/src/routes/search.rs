//! Search: `GET /api/search` (api.md §19).

use board_core::SearchQuery;
use serde::Deserialize;
use warp::http::StatusCode;

use super::{json, Answer, Request};

/// The query of `GET /api/search`, each parameter as text.
#[derive(Debug, Default, Deserialize)]
struct SearchParams {
    tenant: Option<String>,
    project: Option<String>,
    q: Option<String>,
    archived: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
}

#[utoipa::path(
    get, path = "/api/search", operation_id = "search", tag = "cards",
    params(
        ("tenant" = board_core::WorkspaceId, Query, description = "The workspace"),
        ("q" = String, Query, min_length = 1, max_length = 200, description = "The words to find, 1 to 200 characters: every word must be in the card's title or in one of its comments (case- and accent-insensitive; whole words, the last one may be a prefix)"),
        ("project" = Option<String>, Query, description = "A project id: only its cards (default: the whole workspace)"),
        ("archived" = Option<bool>, Query, description = "true: archived cards too (default false)"),
        ("limit" = Option<u16>, Query, minimum = 1, maximum = 200, description = "Cards per page, 1 to 200 (default 20)"),
        ("cursor" = Option<String>, Query, description = "The nextCursor of the previous page"),
    ),
    responses(
        (status = 200, description = "A page of cards found: those whose title matches first, then by updatedAt (newest first), then by id; each with its matches (title, then at most 10 comments) and a snippet", body = board_core::SearchPage),
        (status = 422, description = "tenant or q missing, q empty, over 200 characters or without a word, limit outside 1..=200, archived not true or false, a cursor the server did not make, or a project not of the workspace", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn get(req: Request) -> Answer {
    let actor = req.actor().await?;
    let p: SearchParams = req.query();
    let query = SearchQuery::from_query(
        p.tenant.as_deref(),
        p.project.as_deref(),
        p.q.as_deref(),
        p.archived.as_deref(),
        p.limit.as_deref(),
        p.cursor.as_deref(),
    )?;
    let page = req.board().search(&actor, &query).await?;
    Ok(json(StatusCode::OK, &page))
}
