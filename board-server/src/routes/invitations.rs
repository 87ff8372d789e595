//! Invitations and reset links (api.md §23): `GET|POST /api/invitations`,
//! `DELETE /api/invitations/[id]` (ADMIN), `POST /api/invitations/accept`
//! and `POST /api/password-reset` (a code; both may sign in).

use board_core::{CodeUsed, Input, InvitationId, WorkspaceId};
use serde::Serialize;
use warp::http::StatusCode;

use super::session::set_cookie;
use super::{json, Answer, Request, SetParams};

/// The answer of an accepted invitation or a used reset link.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Used {
    /// The account.
    pub account: super::session::SessionAccount,
    /// The workspace it joined (an invitation).
    pub tenant_id: Option<String>,
    /// Its role there (an invitation).
    pub role: Option<String>,
    /// When the session it opened ends (none: it was signed in already).
    pub expires_at: Option<String>,
}

/// The reply of a used code: 200 with [`Used`], and the session cookie
/// when it opened a session.
fn used(req: &Request, done: CodeUsed) -> Answer {
    let body = Used {
        account: super::session::SessionAccount {
            id: done.account.id.to_string(),
            name: done.account.name.clone(),
        },
        tenant_id: done.member.as_ref().map(|(w, _)| w.to_string()),
        role: done.member.as_ref().map(|(_, r)| r.as_str().to_string()),
        expires_at: done
            .session
            .as_ref()
            .and_then(|s| s.expires_at.as_ref())
            .map(|t| t.to_string()),
    };
    let mut response = json(StatusCode::OK, &body);
    if let Some(session) = &done.session {
        let lifetime = req.app.config.session_lifetime.as_secs();
        set_cookie(&mut response, req, &session.token, lifetime);
    }
    Ok(response)
}

/// The body of `POST /api/invitations` (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct NewInvitationBody {
    /// The workspace.
    #[schema(rename = "tenantId")]
    tenant_id: String,
    /// `VIEWER`, `MEMBER` or `ADMIN`.
    role: String,
    /// An e-mail address the link is also sent to (422 MAIL_DISABLED when the server sends no mail).
    email: Option<String>,
}

/// The body of `POST /api/invitations/accept` (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct CodeBody {
    /// The code of the link (after its `#`).
    code: String,
    /// The new account's name (an invitation accepted without a credential).
    name: Option<String>,
    /// The new account's password (an invitation accepted without a credential).
    password: Option<String>,
}

/// The body of `POST /api/password-reset` (a schema only): no other key.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct ResetBody {
    /// The code of the reset link (after its `#`).
    code: String,
    /// The new password.
    password: String,
}

#[utoipa::path(
    get, path = "/api/invitations", operation_id = "listInvitations", tag = "invitations",
    params(("tenant" = board_core::WorkspaceId, Query, description = "The workspace")),
    responses(
        (status = 200, description = "The workspace's open invitations, newest first, without codes", body = Vec<board_core::Invitation>),
        (status = 403, description = "FORBIDDEN: only an ADMIN of the workspace", body = crate::error::ErrorBody),
        (status = 422, description = "The query parameter `tenant` is missing", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let q: SetParams = req.query();
    let tenant = WorkspaceId::from_query(q.tenant.as_deref())?;
    let open = req.board().invitations(&actor, &tenant).await?;
    Ok(json(StatusCode::OK, &open))
}

#[utoipa::path(
    post, path = "/api/invitations", operation_id = "createInvitation", tag = "invitations",
    request_body(content = inline(NewInvitationBody), description = "The workspace and the role"),
    responses(
        (status = 201, description = "The invitation, with its code and link (`<public URL>/invite#<code>`), shown only here; 7 days, once", body = board_core::CreatedInvitation),
        (status = 403, description = "FORBIDDEN: only an ADMIN of the workspace", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or MAIL_DISABLED: an email while the server sends no mail", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let url = req.public_url();
    let created = req
        .board()
        .create_invitation(&actor, Input::from_body(&bytes), &url)
        .await?;
    Ok(json(StatusCode::CREATED, &created))
}

#[utoipa::path(
    delete, path = "/api/invitations/{id}", operation_id = "revokeInvitation", tag = "invitations",
    params(("id" = board_core::InvitationId, Path, description = "An open invitation")),
    responses(
        (status = 200, description = "Revoked: its code no longer serves", body = super::Deleted),
        (status = 403, description = "FORBIDDEN: only an ADMIN of the workspace", body = crate::error::ErrorBody),
        (status = 404, description = "No such open invitation", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<InvitationId>()?;
    req.board().revoke_invitation(&actor, &id).await?;
    Ok(super::deleted())
}

#[utoipa::path(
    post, path = "/api/invitations/accept", operation_id = "acceptInvitation", tag = "invitations",
    request_body(content = inline(CodeBody), description = "The code; without a credential, the new account's name and password"),
    security((), ("bearer" = []), ("cookie" = [])),
    responses(
        (status = 200, description = "Joined. Without a credential: the account was created and signed in (Set-Cookie)", body = Used),
        (status = 403, description = "CROSS_ORIGIN: from a foreign origin", body = crate::error::ErrorBody),
        (status = 404, description = "The code is unknown, used, expired or revoked (one answer for each)", body = crate::error::ErrorBody),
        (status = 409, description = "NAME_TAKEN: an account has that name", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or WEAK_PASSWORD", body = crate::error::ErrorBody),
        (status = 429, description = "TOO_MANY_ATTEMPTS: too many unknown codes from this address; retry after Retry-After", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn accept(mut req: Request) -> Answer {
    let actor = req.actor_if_any().await?;
    let bytes = req.json_body().await?;
    let address = req.client_address();
    let lifetime = req.app.config.session_lifetime;
    let done = req
        .board()
        .accept_invitation(actor.as_ref(), Input::from_body(&bytes), &address, lifetime)
        .await?;
    tracing::info!(account = ?done.account.name, address = ?address, "invitation accepted");
    used(&req, done)
}

/// The body of `POST /api/password-reset/account` (a schema only): no other key.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct ResetCodeBody {
    /// The code of the reset link (after its `#`).
    code: String,
}

#[utoipa::path(
    post, path = "/api/password-reset/account", operation_id = "resetLinkAccount", tag = "session",
    request_body(content = inline(ResetCodeBody), description = "The code of the reset link"),
    security(()),
    responses(
        (status = 200, description = "The account whose password the link sets; the link is not used", body = super::session::SessionAccount),
        (status = 404, description = "The code is unknown, used or expired (one answer for each)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema", body = crate::error::ErrorBody),
        (status = 429, description = "TOO_MANY_ATTEMPTS: too many unknown codes from this address; retry after Retry-After", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn reset_account(mut req: Request) -> Answer {
    let bytes = req.json_body().await?;
    let address = req.client_address();
    let account = req
        .board()
        .reset_link_account(Input::from_body(&bytes), &address)
        .await?;
    let body = super::session::SessionAccount {
        id: account.id.to_string(),
        name: account.name,
    };
    Ok(json(StatusCode::OK, &body))
}

#[utoipa::path(
    post, path = "/api/password-reset", operation_id = "resetPassword", tag = "session",
    request_body(content = inline(ResetBody), description = "The code of the reset link and the new password"),
    security(()),
    responses(
        (status = 200, description = "The password is set, every session of the account ended, and a new one opened (Set-Cookie)", body = Used),
        (status = 403, description = "CROSS_ORIGIN: from a foreign origin", body = crate::error::ErrorBody),
        (status = 404, description = "The code is unknown, used or expired (one answer for each)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or WEAK_PASSWORD", body = crate::error::ErrorBody),
        (status = 429, description = "TOO_MANY_ATTEMPTS: too many unknown codes from this address; retry after Retry-After", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn reset(mut req: Request) -> Answer {
    let bytes = req.json_body().await?;
    let address = req.client_address();
    let lifetime = req.app.config.session_lifetime;
    let done = req
        .board()
        .reset_password(Input::from_body(&bytes), &address, lifetime)
        .await?;
    tracing::info!(account = ?done.account.name, address = ?address, "password reset");
    used(&req, done)
}

#[utoipa::path(
    post, path = "/api/password-reset/request", operation_id = "requestPasswordReset", tag = "session",
    request_body(content = board_core::ResetRequest, description = "The account's name or its verified e-mail address"),
    security(()),
    responses(
        (status = 202, description = "Always the same answer, after the same time: an account with a verified address is sent a reset link (1 hour, once)", body = board_core::ResetRequested),
        (status = 403, description = "CROSS_ORIGIN: from a foreign origin", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or MAIL_DISABLED: the server sends no mail", body = crate::error::ErrorBody),
        (status = 429, description = "TOO_MANY_ATTEMPTS: this address used its sign-in budget; retry after Retry-After", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn request_reset(mut req: Request) -> Answer {
    let bytes = req.json_body().await?;
    let address = req.client_address();
    let done = req
        .board()
        .request_password_reset(Input::from_body(&bytes), &address)
        .await?;
    Ok(json(StatusCode::ACCEPTED, &done))
}
