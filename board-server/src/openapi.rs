//! `GET /api/openapi.json`: the OpenAPI 3.1 document of every route, built by
//! `utoipa` from the handlers' `#[utoipa::path]` attributes and the wire types
//! of board-core (feature `openapi`). What holds for every route is applied
//! here once (`Common`): the security schemes; a secured route may answer 401
//! and 403, a route with a path id 404 (unless the route says more); a JSON
//! body is closed (unknown fields are a schema failure) and may answer 413
//! and 415;
//! and `LINKS` says where a created resource's id can be used.
//!
//! The routes' own operations come from the route table
//! ([`crate::routes::table`]), which builds the document once.

use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::request_body::RequestBody;
use utoipa::openapi::schema::{AdditionalProperties, Schema};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{ContentBuilder, OpenApi as Document, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{Modify, OpenApi, ToSchema};

use crate::error::ErrorBody;

/// What the document says before any route: its title, and that every route
/// needs a credential unless it says `security(())`.
#[derive(OpenApi)]
#[openapi(info(title = "board"), security(("bearer" = []), ("cookie" = [])))]
struct Base;

/// The document without routes; the route table merges each route's
/// operation into it, then calls [`finish`].
pub fn base() -> Document {
    Base::openapi()
}

/// Applies what holds for every route (see the module doc) to the document
/// of all routes.
pub fn finish(doc: &mut Document) {
    Common.modify(doc);
}

/// The document's description: what holds for every route.
const DESCRIPTION: &str =
    "Columns, cards, comments, attachments, history and relations of a kanban board.

The rules around these routes (the order of checks, ids and times, paging, events, \
webhook signatures, limits) are in `docs/api.md` of board's repository, in numbered \
sections that descriptions here cite as `api.md §N`.

Credentials: `Authorization: Bearer <token>`, or the cookie `board_session=<token>`.

Browser clients: a POST, PATCH, PUT or DELETE authenticated by the cookie is refused \
with 403 `CROSS_ORIGIN` (and changes nothing) when its `Origin` names an origin other \
than the server's own (its `Host`) or one listed in `--allowed-origins`, or, without \
`Origin`, when `Sec-Fetch-Site` is `cross-site`. A request authenticated by the \
`Authorization` header is never refused for its origin. A cookie write with several \
`Origin` headers is refused as `CROSS_ORIGIN`.

Paths are matched exactly: a trailing or doubled slash, a `.` or `..` segment or an \
encoded slash is 404. A route that reads a JSON body refuses any other `Content-Type` \
than `application/json` or a `+json` type with 415 `UNSUPPORTED_MEDIA_TYPE`, changing \
nothing. Every answer under `/api/` carries `Cache-Control: no-store` and \
`X-Content-Type-Options: nosniff`, except event streams and file downloads.

CORS: for an origin listed in `--allowed-origins` (`BOARD_ALLOWED_ORIGINS`), a preflight \
`OPTIONS` on any route answers 204 with `Access-Control-Allow-Origin` (that origin), \
`Access-Control-Allow-Methods` (the route's methods), `Access-Control-Allow-Headers` \
(`authorization, content-type, if-match, if-none-match, last-event-id, x-request-id`), \
`Access-Control-Allow-Credentials: true`, `Access-Control-Max-Age` and `Vary: Origin`; \
every response to it carries `Access-Control-Allow-Origin`, \
`Access-Control-Allow-Credentials: true`, `Vary: Origin` and \
`Access-Control-Expose-Headers: etag, x-request-id`. A preflight from an origin not listed \
is 403 `CROSS_ORIGIN`, without `Access-Control-Allow-Origin`.

Conditional requests: `GET /api/board`, `GET /api/columns`, `GET /api/cards/{id}` and \
a card's `comments`, `history`, `relations` and `attachments` answer with a strong \
`ETag`; `If-None-Match` naming it (weak comparison, lists, `*`) gets 304 without a body, \
after the credential and access checks. `PATCH /api/cards/{id}` and \
`PATCH /api/comments/{id}` take `If-Match` (the tag of the card, or of the card's \
comments; strong comparison): a stale tag is 412 `PRECONDITION_FAILED` and changes nothing.

When the database cannot be reached, every route answers 503 `UNAVAILABLE` with \
`Retry-After`.

Connections (HTTP/1.1): a request head must be complete within 10 s of its first byte \
(or of the connection's opening), a request body may not pause for 30 s, and a \
keep-alive connection idle for 60 s is closed; past `--max-connections` a new connection \
is closed at once. A request head the server cannot read is answered before any route, \
with the same JSON error body and `Connection: close`: 400 `BAD_REQUEST` (a malformed \
request line or header), 414 `URI_TOO_LONG` (a target over 65,534 bytes), 431 \
`HEADERS_TOO_LARGE` (over 100 headers, or about 400 KB of head).";

/// Security schemes, and the rules every route shares.
struct Common;

impl Modify for Common {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
        components.add_security_scheme(
            "cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new("board_session"))),
        );
        doc.info.description = Some(DESCRIPTION.to_string());
        let closed: Vec<String> = operations(doc).filter_map(shared_responses).collect();
        add_links(doc);
        let components = doc.components.get_or_insert_with(Default::default);
        for name in closed {
            if let Some(RefOr::T(Schema::Object(obj))) = components.schemas.get_mut(&name) {
                obj.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
            }
        }
    }
}

/// Every operation of the document.
fn operations(doc: &mut Document) -> impl Iterator<Item = &mut Operation> {
    doc.paths.paths.values_mut().flat_map(|item| {
        [
            &mut item.get,
            &mut item.head,
            &mut item.post,
            &mut item.patch,
            &mut item.put,
            &mut item.delete,
        ]
        .into_iter()
        .flatten()
    })
}

/// Where the id a created resource answers with can be used next:
/// (operation, status, operation that takes it, its parameter, the value).
const LINKS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "createColumn",
        "201",
        "updateColumn",
        "id",
        "$response.body#/id",
    ),
    (
        "createColumn",
        "201",
        "deleteColumn",
        "id",
        "$response.body#/id",
    ),
    ("createCard", "201", "getCard", "id", "$response.body#/id"),
    (
        "createCard",
        "201",
        "updateCard",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "deleteCard",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "cardHistory",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "cardActivity",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "listComments",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "createComment",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "uploadCommentImages",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "listAttachments",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "createAttachments",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "listRelations",
        "id",
        "$response.body#/id",
    ),
    (
        "createCard",
        "201",
        "createRelation",
        "id",
        "$response.body#/id",
    ),
    (
        "createComment",
        "201",
        "updateComment",
        "id",
        "$response.body#/id",
    ),
    (
        "createComment",
        "201",
        "deleteComment",
        "id",
        "$response.body#/id",
    ),
    (
        "createAttachments",
        "201",
        "deleteAttachment",
        "id",
        "$response.body#/0/id",
    ),
    (
        "createAttachments",
        "201",
        "downloadFile",
        "storedName",
        "$response.body#/0/storedName",
    ),
    (
        "createRelation",
        "201",
        "deleteRelation",
        "id",
        "$response.body#/id",
    ),
];

fn add_links(doc: &mut Document) {
    for (from, status, to, param, value) in LINKS {
        let op = operations(doc).find(|op| op.operation_id.as_deref() == Some(from));
        let Some(RefOr::T(response)) = op.and_then(|op| op.responses.responses.get_mut(*status))
        else {
            panic!("link from an unknown response: {from} {status}");
        };
        let link = utoipa::openapi::link::LinkBuilder::new()
            .operation_id(*to)
            .parameter(*param, *value)
            .build();
        response.links.insert(to.to_string(), RefOr::T(link));
    }
}

/// Adds 401 to a secured operation and 413 to one with a JSON body; returns
/// the schema name of that JSON body, which is then closed.
fn shared_responses(op: &mut Operation) -> Option<String> {
    // No `security` of its own: the document's (a credential) holds.
    let secured = op
        .security
        .as_ref()
        .is_none_or(|s| s.iter().any(|r| r != &Default::default()));
    if secured {
        add_error(
            op,
            "401",
            "No credential, or one that is malformed, unknown, revoked or expired",
        );
        add_error(
            op,
            "403",
            "The account does not reach the workspace, or its role is too low; or \
             CROSS_ORIGIN: a POST, PATCH, PUT or DELETE authenticated by the cookie \
             came from an origin other than the server's own or an allowed one",
        );
    }
    add_error(
        op,
        "503",
        "UNAVAILABLE: the database cannot be reached now; retry after the \
         Retry-After header's seconds",
    );
    if let Some(what) = path_resource(op) {
        add_error(op, "404", &format!("No such {what}, or a malformed id"));
    }
    let RefOr::T(body) = op.request_body.as_ref()? else {
        return None;
    };
    let json = json_body(body)?;
    add_error(op, "413", "The JSON body is over 1 MiB");
    add_error(
        op,
        "415",
        "UNSUPPORTED_MEDIA_TYPE: a body sent with a Content-Type other than \
         application/json or a +json type",
    );
    json
}

/// What the path parameter names ("The card" → "card"), if there is one.
fn path_resource(op: &Operation) -> Option<String> {
    op.parameters
        .iter()
        .flatten()
        .find_map(|p| match p {
            RefOr::T(p) if p.parameter_in == ParameterIn::Path => p.description.clone(),
            _ => None,
        })
        .map(|d| d.trim_start_matches("The ").to_string())
}

fn json_body(body: &RequestBody) -> Option<Option<String>> {
    let RefOr::T(content) = body.content.get("application/json")? else {
        return Some(None);
    };
    Some(match content.schema.as_ref()? {
        RefOr::Ref(r) => r.ref_location.rsplit('/').next().map(str::to_string),
        RefOr::T(_) => None,
    })
}

fn add_error(op: &mut Operation, status: &str, description: &str) {
    op.responses
        .responses
        .entry(status.to_string())
        .or_insert_with(|| error_response(description));
}

fn error_response(description: &str) -> RefOr<Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(RefOr::Ref(Ref::from_schema_name(ErrorBody::name()))))
                .build(),
        )
        .build()
        .into()
}
