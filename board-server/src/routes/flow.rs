//! Flow metrics: `GET /api/flow` (api.md §13).

use board_core::FlowQuery;
use serde::Deserialize;
use warp::http::StatusCode;

use super::{json, Answer, Request};

/// The query of `GET /api/flow`, each parameter as text.
#[derive(Debug, Default, Deserialize)]
struct FlowParams {
    tenant: Option<String>,
    project: Option<String>,
    since: Option<String>,
    until: Option<String>,
}

#[utoipa::path(
    get, path = "/api/flow", operation_id = "getFlow", tag = "cards",
    params(
        ("tenant" = board_core::WorkspaceId, Query, description = "The workspace"),
        ("project" = Option<String>, Query, description = "A project id: the set in effect for its cards"),
        ("since" = Option<String>, Query, description = "The window's start (inclusive): YYYY-MM-DD (midnight UTC) or an RFC 3339 date-time; default the start of the UTC day 29 days before the window's last day (30 UTC days)"),
        ("until" = Option<String>, Query, description = "The window's end (exclusive), in the same forms; default now. The window is at most 366 days"),
    ),
    responses(
        (status = 200, description = "Time in column, lead and cycle time, throughput, cumulative flow and aging of the set in effect", body = board_core::Flow),
        (status = 422, description = "A required query parameter is missing, a project is not of the workspace, or the window is not ISO 8601, empty or too long", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn get(req: Request) -> Answer {
    let actor = req.actor().await?;
    let q: FlowParams = req.query();
    let query = FlowQuery::from_query(
        q.tenant.as_deref(),
        q.project.as_deref(),
        q.since.as_deref(),
        q.until.as_deref(),
    )?;
    let flow = req.board().flow(&actor, &query).await?;
    Ok(json(StatusCode::OK, &flow))
}
