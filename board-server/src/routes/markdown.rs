//! `POST /api/markdown`: a Markdown preview (api.md §24).

use board_core::Input;
use warp::http::StatusCode;

use super::{json, Answer, Request};

#[utoipa::path(
    post, path = "/api/markdown", operation_id = "renderMarkdown", tag = "cards",
    request_body = board_core::MarkdownInput,
    responses(
        (status = 200, description = "The text rendered as a description or comment is shown (the same renderer and sanitiser); nothing is stored", body = board_core::Rendered),
        (status = 422, description = "text missing, not a string, over 100,000 characters, or holding a control character other than line feed, carriage return and tab", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn render(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let rendered = req
        .board()
        .render_markdown(&actor, Input::from_body(&bytes))?;
    Ok(json(StatusCode::OK, &rendered))
}
