//! The calling account's tokens (api.md §23): `GET|POST /api/tokens`,
//! `DELETE /api/tokens/[id]`. A token's secret is shown once, at creation.

use board_core::{Input, TokenId};
use warp::http::StatusCode;

use super::{json, Answer, Request};

#[utoipa::path(
    get, path = "/api/tokens", operation_id = "listTokens", tag = "tokens",
    responses(
        (status = 200, description = "The account's tokens and sessions that still work, newest first; never a secret", body = Vec<board_core::OwnToken>),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let tokens = req.board().own_tokens(&actor).await?;
    Ok(json(StatusCode::OK, &tokens))
}

/// The body of `POST /api/tokens` (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct NewTokenBody {
    /// What the token is for (1 to 100 characters).
    label: String,
    /// Days until it expires, 1 to 3650; never without it.
    #[schema(rename = "expiresInDays", minimum = 1, maximum = 3650)]
    expires_in_days: Option<u32>,
}

#[utoipa::path(
    post, path = "/api/tokens", operation_id = "createToken", tag = "tokens",
    request_body(content = inline(NewTokenBody), description = "The label, and the lifetime in days"),
    responses(
        (status = 201, description = "The new personal token; `token` is shown only here", body = board_core::CreatedToken),
        (status = 422, description = "The body failed the schema", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let created = req
        .board()
        .create_own_token(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::CREATED, &created))
}

#[utoipa::path(
    delete, path = "/api/tokens/{id}", operation_id = "revokeToken", tag = "tokens",
    params(("id" = board_core::TokenId, Path, description = "One of the account's tokens or sessions")),
    responses(
        (status = 200, description = "Revoked", body = super::Deleted),
        (status = 404, description = "No such token of this account", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<TokenId>()?;
    req.board().revoke_own_token(&actor, &id).await?;
    Ok(super::deleted())
}
