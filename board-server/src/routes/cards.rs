//! Card routes: `POST /api/cards`, `GET|PATCH|DELETE /api/cards/[id]`,
//! `GET /api/cards/[id]/history`, archive and restore, the archived list
//! `GET /api/cards`, and the board payload `GET /api/board`.

use board_core::{ArchivedQuery, CardId, Input, SetQuery};
use serde::Deserialize;
use warp::http::StatusCode;

use super::{json, Answer, Request, SetParams};

/// The query of `GET /api/cards/[id]`, as text.
#[derive(Debug, Default, Deserialize)]
struct HtmlParams {
    html: Option<String>,
}

#[utoipa::path(
    post, path = "/api/cards", operation_id = "createCard", tag = "cards",
    request_body = board_core::NewCard,
    responses(
        (status = 201, description = "The new card (one history entry written), at the end of its column or beside its anchor", body = board_core::Card),
        (status = 409, description = "CONFLICT: another change took the place at the same moment (retry)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema (beforeId and afterId both given: formErrors), INVALID_TARGET_COLUMN, INVALID_ANCHOR (the anchor is not another card of the target column), or WIP_LIMIT (the target column is at its hard WIP limit)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let card = req
        .board()
        .create_card(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::CREATED, &card))
}

#[utoipa::path(
    get, path = "/api/cards/{id}", operation_id = "getCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("html" = Option<bool>, Query, description = "true: the card also carries descriptionHtml, its description rendered to safe HTML (api.md §24), under a tag of its own"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (api.md §22)")),
    responses(
        (status = 200, description = "The card", body = board_core::CardView, headers(("ETag" = String, description = "The strong entity tag of the payload (api.md §22)"))),
        (status = 422, description = "html is neither true nor false", body = crate::error::ErrorBody),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
    ),
)]
pub(super) async fn get(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let params: HtmlParams = req.query();
    let query = board_core::ThreadQuery::from_query(params.html.as_deref());
    let read = req
        .board()
        .card_view_if(&actor, &id, &query, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}

#[utoipa::path(
    patch, path = "/api/cards/{id}", operation_id = "updateCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("html" = Option<bool>, Query, description = "true: the answer also carries descriptionHtml, and the tag of that representation (api.md §22, §24)"), ("If-Match" = Option<String>, Header, description = "The tag of GET /api/cards/{id} the change is based on (strong comparison, or *): when the card changed since, 412 PRECONDITION_FAILED and nothing changes (api.md §22)")),
    request_body = board_core::CardPatch,
    responses(
        (status = 200, description = "The card as GET /api/cards/{id} now answers it (a move to another column writes one history entry; a placement within the column writes none)", body = board_core::CardView, headers(("ETag" = String, description = "The tag GET /api/cards/{id} (with the same html) now answers: save again with it as If-Match (api.md §22)"))),
        (status = 412, description = "PRECONDITION_FAILED: If-Match names no current tag; nothing changed", body = crate::error::ErrorBody),
        (status = 409, description = "CONFLICT: another change took the place at the same moment (retry)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema (beforeId and afterId both given: formErrors), html is neither true nor false, INVALID_TARGET_COLUMN, INVALID_ANCHOR (the anchor is not another card of the target column), or WIP_LIMIT (the target column is at its hard WIP limit)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let bytes = req.json_body().await?;
    let cond = req.if_match();
    let params: HtmlParams = req.query();
    let query = board_core::ThreadQuery::from_query(params.html.as_deref());
    let saved = req
        .board()
        .save_card(&actor, &id, Input::from_body(&bytes), &cond, &query)
        .await?;
    Ok(super::saved(StatusCode::OK, saved))
}

#[utoipa::path(
    delete, path = "/api/cards/{id}", operation_id = "deleteCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card is deleted with its comments, attachments, relations and history", body = super::Deleted),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    req.board()
        .delete_card(&actor, &req.path_id::<CardId>()?)
        .await?;
    Ok(super::deleted())
}

#[utoipa::path(
    get, path = "/api/cards/{id}/history", operation_id = "cardHistory", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (api.md §22)")),
    responses(
        (status = 200, description = "The card's column changes, oldest first", body = Vec<board_core::HistoryEntry>, headers(("ETag" = String, description = "The strong entity tag of the payload (api.md §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
    ),
)]
pub(super) async fn history(req: Request) -> Answer {
    // The token is checked by the read's first statement.
    let bearer = req.bearer()?;
    let id = req.after_credential(req.path_id::<CardId>()).await?;
    let read = req
        .board()
        .card_history_if(&bearer, &id, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}

#[utoipa::path(
    get, path = "/api/board", operation_id = "getBoard", tag = "cards",
    params(("tenant" = board_core::WorkspaceId, Query, description = "The workspace"), ("project" = Option<String>, Query, description = "A project id: the set in effect for its cards"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (api.md §22)")),
    responses(
        (status = 200, description = "The set in effect, each column with its cards", body = board_core::BoardView, headers(("ETag" = String, description = "The strong entity tag of the payload (api.md §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
        (status = 422, description = "A required query parameter is missing, or a rule was broken", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn board(req: Request) -> Answer {
    // The token is checked by the read's first statement.
    let bearer = req.bearer()?;
    let q: SetParams = req.query();
    let query = SetQuery::from_query(q.tenant.as_deref(), q.project.as_deref());
    let query = req.after_credential(query.map_err(Into::into)).await?;
    let read = req
        .board()
        .board_if(&bearer, &query, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}

#[utoipa::path(
    post, path = "/api/cards/{id}/archive", operation_id = "archiveCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card, archived (archivedAt set): it leaves the board, the WIP counts and the flow's wip, aging and cumulative flow, and keeps its column, comments, attachments, links and history. An archived card is returned unchanged", body = board_core::Card),
    ),
)]
pub(super) async fn archive(req: Request) -> Answer {
    let actor = req.actor().await?;
    let card = req
        .board()
        .archive_card(&actor, &req.path_id::<CardId>()?)
        .await?;
    Ok(json(StatusCode::OK, &card))
}

#[utoipa::path(
    post, path = "/api/cards/{id}/restore", operation_id = "restoreCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card, back on the board at the end of its column (or of the first column of its set in effect when its column is no longer in it: one history entry). A card on the board is returned unchanged", body = board_core::Card),
        (status = 422, description = "WIP_LIMIT: the column is at its hard WIP limit", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn restore(req: Request) -> Answer {
    let actor = req.actor().await?;
    let card = req
        .board()
        .restore_card(&actor, &req.path_id::<CardId>()?)
        .await?;
    Ok(json(StatusCode::OK, &card))
}

/// The query of `GET /api/cards`, each parameter as text.
#[derive(Debug, Default, Deserialize)]
struct ArchivedParams {
    tenant: Option<String>,
    project: Option<String>,
    archived: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
    assignee: Option<String>,
    label: Option<String>,
    due: Option<String>,
    tz: Option<String>,
}

#[utoipa::path(
    get, path = "/api/cards", operation_id = "listCards", tag = "cards",
    params(
        ("tenant" = Option<board_core::WorkspaceId>, Query, description = "The workspace; may be omitted with assignee=me (every workspace the account reaches)"),
        ("project" = Option<String>, Query, description = "A project id: only its cards (default: the whole workspace)"),
        ("assignee" = Option<String>, Query, description = "An account id, or me: only the cards assigned to it (api.md §24)"),
        ("label" = Option<board_core::LabelId>, Query, description = "Only the cards with this label"),
        ("due" = Option<String>, Query, description = "overdue (due before now, outside a done column), today, week (today and the 6 days after) or none"),
        ("tz" = Option<String>, Query, description = "The IANA time zone (Europe/Paris) whose calendar days due=today and due=week count; UTC without it"),
        ("archived" = Option<bool>, Query, description = "true: archived cards. Alone (no assignee, label, due or tz), the archived list of api.md §19, most recently archived first"),
        ("limit" = Option<u16>, Query, minimum = 1, maximum = 200, description = "Cards per page, 1 to 200 (default 50)"),
        ("cursor" = Option<String>, Query, description = "The nextCursor of the previous page"),
    ),
    responses(
        (status = 200, description = "A page of cards: by due time (none last), then board order; the archived list alone: most recently archived first", body = board_core::ArchivedPage),
        (status = 422, description = "tenant missing (without assignee=me), a malformed parameter, limit outside 1..=200, a cursor the server did not make, or a project not of the workspace", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let q: ArchivedParams = req.query();
    let filtered = board_core::CardQuery {
        tenant: q.tenant,
        project: q.project,
        assignee: q.assignee,
        label: q.label,
        due: q.due,
        tz: q.tz,
        archived: q.archived,
        limit: q.limit,
        cursor: q.cursor,
    };
    if filtered.is_filtered() {
        let page = req.board().cards_page(&actor, &filtered).await?;
        return Ok(json(StatusCode::OK, &page));
    }
    let query = ArchivedQuery::from_query(
        filtered.tenant.as_deref(),
        filtered.project.as_deref(),
        filtered.archived.as_deref(),
        filtered.limit.as_deref(),
        filtered.cursor.as_deref(),
    )?;
    let page = req.board().archived_cards(&actor, &query).await?;
    Ok(json(StatusCode::OK, &page))
}

#[utoipa::path(
    put, path = "/api/cards/{id}/labels/{labelId}", operation_id = "putCardLabel", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("labelId" = board_core::LabelId, Path, description = "A label of the card's workspace")),
    responses(
        (status = 200, description = "The card, with the label (a second PUT changes nothing and emits nothing)", body = board_core::Card, headers(("ETag" = String, description = "The tag GET /api/cards/{id} now answers (api.md §22)"))),
        (status = 422, description = "INVALID_LABEL: the label is not one of the card's workspace", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn put_label(req: Request) -> Answer {
    let actor = req.actor().await?;
    let (id, label) = req.path_ids::<CardId, board_core::LabelId>()?;
    let card = req.board().put_card_label(&actor, &id, &label).await?;
    Ok(super::saved(StatusCode::OK, card.saved()?))
}

#[utoipa::path(
    delete, path = "/api/cards/{id}/labels/{labelId}", operation_id = "deleteCardLabel", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("labelId" = board_core::LabelId, Path, description = "The label")),
    responses(
        (status = 200, description = "The card, without the label (when it did not have it, nothing changes)", body = board_core::Card, headers(("ETag" = String, description = "The tag GET /api/cards/{id} now answers (api.md §22)"))),
    ),
)]
pub(super) async fn delete_label(req: Request) -> Answer {
    let actor = req.actor().await?;
    let (id, label) = req.path_ids::<CardId, board_core::LabelId>()?;
    let card = req.board().delete_card_label(&actor, &id, &label).await?;
    Ok(super::saved(StatusCode::OK, card.saved()?))
}

#[utoipa::path(
    put, path = "/api/cards/{id}/assignees/{accountId}", operation_id = "putCardAssignee", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("accountId" = board_core::AccountId, Path, description = "A member of the card's workspace (any role)")),
    responses(
        (status = 200, description = "The card, assigned to the account after its other assignees (a second PUT changes nothing and emits nothing)", body = board_core::Card, headers(("ETag" = String, description = "The tag GET /api/cards/{id} now answers (api.md §22)"))),
        (status = 422, description = "NOT_A_MEMBER: the account is not a member of the card's workspace", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn put_assignee(req: Request) -> Answer {
    let actor = req.actor().await?;
    let (id, account) = req.path_ids::<CardId, board_core::AccountId>()?;
    let card = req.board().put_card_assignee(&actor, &id, &account).await?;
    Ok(super::saved(StatusCode::OK, card.saved()?))
}

#[utoipa::path(
    delete, path = "/api/cards/{id}/assignees/{accountId}", operation_id = "deleteCardAssignee", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("accountId" = board_core::AccountId, Path, description = "The account")),
    responses(
        (status = 200, description = "The card, without the assignee (when it was not assigned, nothing changes)", body = board_core::Card, headers(("ETag" = String, description = "The tag GET /api/cards/{id} now answers (api.md §22)"))),
    ),
)]
pub(super) async fn delete_assignee(req: Request) -> Answer {
    let actor = req.actor().await?;
    let (id, account) = req.path_ids::<CardId, board_core::AccountId>()?;
    let card = req
        .board()
        .delete_card_assignee(&actor, &id, &account)
        .await?;
    Ok(super::saved(StatusCode::OK, card.saved()?))
}
