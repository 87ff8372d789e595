//! `GET /api/events?tenant=T`: the workspace's committed changes as
//! server-sent events (api.md §11), resumable with `Last-Event-ID` or
//! `?after=`.

use std::convert::Infallible;

use board_core::{FeedItem, Subscription, ValidationErrors, WorkspaceId};
use serde::Deserialize;
use tokio::sync::OwnedSemaphorePermit;
use warp::http::header::{HeaderValue, CACHE_CONTROL};
use warp::http::StatusCode;
use warp::sse::Event as Sse;
use warp::Reply;

use super::{Answer, Request};
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
        (status = 200, description = "Server-sent events, one per committed change of the workspace, in commit order: `id: <seq>`, `event: <type>`, `data: {seq, type, tenantId, at, actorId, subject, …}`; `event: reset` first when the resume point is older than what is retained; `: keep-alive` when quiet", content_type = "text/event-stream", body = String,
            headers(
                ("Cache-Control" = String, description = "no-cache"),
                ("X-Accel-Buffering" = String, description = "no: a reverse proxy (nginx) passes each event on at once"),
            )),
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
    let after = resume_point(header, q.after.as_deref())?;
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
    let mut sub = req.board().subscribe(&actor, &workspace, after).await?;
    sub.recheck_every(req.app.config.events_recheck);
    let mut open = Open {
        sub,
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
    let mut res = warp::sse::reply(keep_alive).into_response();
    // api.md §21: a reverse proxy passes events on at once (nginx buffers
    // a response without this header), and nothing caches the stream.
    let h = res.headers_mut();
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(res)
}

/// An open stream: its subscription (which checks its actor's access again
/// every `events_recheck` itself) and its place among the server's streams.
struct Open {
    sub: Subscription,
    /// Held for the stream's life: one of the server's stream places.
    _permit: OwnedSemaphorePermit,
}

impl Open {
    /// The next event to send, or `None` when the stream ends (credential
    /// revoked or expired, workspace no longer reached, database error: the
    /// client reconnects with `Last-Event-ID`).
    async fn next(&mut self) -> Option<Sse> {
        match self.sub.next().await {
            Ok(FeedItem::Reset) => Some(Sse::default().event("reset").data("{}")),
            Ok(FeedItem::Event(e)) => Some(
                Sse::default()
                    .id(e.seq.to_string())
                    .event(e.kind.as_str())
                    .data(e.data.as_str()),
            ),
            Err(e) => {
                tracing::warn!(error = %e, "event stream ended");
                None
            }
        }
    }
}

/// Where a stream resumes (api.md §11): after the seq of `Last-Event-ID`
/// (`header`), which wins, as it is the browser's own resume point after a
/// reconnect, or else of `?after=` (`query`); `None` when neither is given. A
/// value that is not a seq (a whole number, 0 or more) is a 422 on `after`.
fn resume_point(
    header: Option<&str>,
    query: Option<&str>,
) -> Result<Option<i64>, board_core::Error> {
    let Some(given) = header.or(query) else {
        return Ok(None);
    };
    match given.trim().parse::<i64>() {
        Ok(seq) if seq >= 0 => Ok(Some(seq)),
        _ => Err(ValidationErrors::one(
            "after",
            "Expected a seq: a whole number, 0 or more",
        )),
    }
}
