//! `GET /api/events?tenant=T`: the workspace's committed changes as
//! server-sent events (contract §11), resumable with `Last-Event-ID` or
//! `?after=`.

use std::convert::Infallible;

use board_core::{Actor, Board, FeedItem, Subscription, WorkspaceId};
use serde::Deserialize;
use tokio::sync::OwnedSemaphorePermit;
use warp::http::StatusCode;
use warp::sse::Event as Sse;
use warp::Reply;

use super::{Answer, Request};
use crate::auth::Credentials;
use crate::error::ApiError;

/// The query of `GET /api/events`.
#[derive(Debug, Default, Deserialize)]
struct EventParams {
    tenant: Option<String>,
    after: Option<String>,
}

/// The comment a quiet stream sends every 15 s.
const KEEP_ALIVE: &str = " keep-alive";

#[utoipa::path(
    get, path = "/api/events", operation_id = "events", tag = "events",
    params(
        ("tenant" = board_core::WorkspaceId, Query, description = "The workspace"),
        ("after" = Option<i64>, Query, description = "Resume after this seq (the `Last-Event-ID` header wins)"),
        ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this seq: the retained events after it come first, then the live ones"),
    ),
    responses(
        (status = 200, description = "Server-sent events, one per committed change of the workspace, in commit order: `id: <seq>`, `event: <type>`, `data: {seq, type, tenantId, at, actorId, subject, …}`; `event: reset` first when the resume point is older than what is retained; `: keep-alive` when quiet", content_type = "text/event-stream", body = String),
        (status = 422, description = "`tenant` is missing, or `after`/`Last-Event-ID` is not a seq", body = crate::error::ErrorBody),
        (status = 503, description = "UNAVAILABLE: the server has as many streams open as it allows (--max-event-streams), or the database cannot be reached; retry after Retry-After", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn stream(req: Request) -> Answer {
    let actor = req.actor().await?;
    let q: EventParams = req.query();
    let workspace = WorkspaceId::from_query(q.tenant.as_deref())?;
    let header = req
        .headers()
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or(""));
    let after = board_core::resume_point(header, q.after.as_deref())?;
    let permit = req.app.streams.clone().try_acquire_owned().map_err(|_| {
        ApiError::Http(
            StatusCode::SERVICE_UNAVAILABLE,
            "UNAVAILABLE",
            format!(
                "this server has {} event streams open, as many as it allows \
                 (--max-event-streams): retry later",
                req.app.config.max_event_streams
            ),
        )
    })?;
    let sub = req.board().subscribe(&actor, &workspace, after).await?;
    let mut open = Open {
        board: req.board().clone(),
        credentials: Credentials::from_headers(req.headers()),
        workspace,
        sub,
        recheck: tokio::time::interval_at(
            tokio::time::Instant::now() + req.app.config.events_recheck,
            req.app.config.events_recheck,
        ),
        _permit: permit,
    };
    // The subscription is driven by a task of its own, which ends (and
    // frees its place) as soon as the client goes away or the server
    // starts shutting down.
    let (tx, rx) = tokio::sync::mpsc::channel::<Sse>(64);
    let mut closing = req.app.closing.clone();
    tokio::spawn(async move {
        let closed = async move {
            while !*closing.borrow_and_update() {
                if closing.changed().await.is_err() {
                    return;
                }
            }
        };
        tokio::pin!(closed);
        loop {
            tokio::select! {
                _ = tx.closed() => return,
                _ = &mut closed => return,
                next = open.next() => match next {
                    Some(event) => if tx.send(event).await.is_err() { return },
                    None => return,
                },
            }
        }
    });
    let events = futures_util::stream::unfold(rx, |mut rx| async move {
        let event = rx.recv().await?;
        Some((Ok::<_, Infallible>(event), rx))
    });
    let keep_alive = warp::sse::keep_alive().text(KEEP_ALIVE).stream(events);
    Ok(warp::sse::reply(keep_alive).into_response())
}

/// An open stream: its subscription, and what it checks again every
/// `events_recheck` (the credential, and the reach of the workspace).
struct Open {
    board: Board,
    credentials: Credentials,
    workspace: WorkspaceId,
    sub: Subscription,
    recheck: tokio::time::Interval,
    /// Held for the stream's life: one of the server's stream places.
    _permit: OwnedSemaphorePermit,
}

impl Open {
    /// The next event to send, or `None` when the stream ends (credential
    /// revoked or expired, workspace no longer reached, database error: the
    /// client reconnects with `Last-Event-ID`).
    async fn next(&mut self) -> Option<Sse> {
        loop {
            tokio::select! {
                item = self.sub.next() => return match item {
                    Ok(FeedItem::Reset) => Some(Sse::default().event("reset").data("{}")),
                    Ok(FeedItem::Event(e)) => Some(
                        Sse::default().id(e.seq.to_string()).event(e.kind.as_str()).data(e.data.as_str()),
                    ),
                    Err(e) => {
                        tracing::warn!(error = %e, "event stream ended");
                        None
                    }
                },
                _ = self.recheck.tick() => {
                    if !self.still_allowed().await {
                        return None;
                    }
                }
            }
        }
    }

    async fn still_allowed(&self) -> bool {
        let actor: Actor = match self.credentials.actor(&self.board).await {
            Ok(actor) => actor,
            Err(_) => return false,
        };
        self.board.can_follow(&actor, &self.workspace).await.is_ok()
    }
}
