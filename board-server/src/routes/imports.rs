//! `POST /api/imports/trello` (api.md §28): the multipart form read whole (the
//! file kept up to `--max-import-bytes`), then one core operation, which
//! checks the role before the file: 403, then 413 `FILE_TOO_LARGE`, then
//! what the file holds.

use std::collections::BTreeMap;

use board_core::{AccountId, Error, TrelloImport, UploadSource, ValidationErrors, WorkspaceId};
use utoipa::ToSchema;
use warp::http::StatusCode;

use crate::error::ApiError;

use super::attachments::{FileBytes, Multipart};
use super::{json, Answer, Request};

#[utoipa::path(
    post, path = "/api/imports/trello", operation_id = "importTrello", tag = "imports",
    request_body(content = TrelloForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "The board is imported: what it brought (api.md §28)", body = board_core::ImportSummary),
        (status = 200, description = "A dry run (dryRun=true): what an import would bring; nothing is written", body = board_core::ImportSummary),
        (status = 400, description = "No file in the form, or an unreadable form (NO_FILE)", body = crate::error::ErrorBody),
        (status = 403, description = "The account is not an ADMIN of the workspace (checked before the file is read), or a column is needed while column management is off (COLUMN_MANAGEMENT_DISABLED)", body = crate::error::ErrorBody),
        (status = 413, description = "The file is over --max-import-bytes (FILE_TOO_LARGE), once the role is checked", body = crate::error::ErrorBody),
        (status = 422, description = "A bad field, a file that is not a Trello board export (NOT_A_TRELLO_EXPORT), or a member mapped to an account outside the workspace (NOT_A_MEMBER)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn trello(req: Request) -> Answer {
    let actor = req.actor().await?;
    let max = req.app.config.max_import_bytes;
    let (req, mut form) = req.multipart();
    let read = read_form(&mut form, max).await;
    form.drain_after_refusal(read.is_err()).await;
    let (import, file) = read?;
    let dry = import.dry_run;
    let summary = req.board().import_trello(&actor, import, &file).await?;
    let status = if dry {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok(json(status, &summary))
}

/// The form's fields and file: every field checked, the file at most `max` bytes.
async fn read_form(form: &mut Multipart, max: u64) -> Result<(TrelloImport, Vec<u8>), ApiError> {
    let mut fields: BTreeMap<String, String> = BTreeMap::new();
    let mut file: Option<Vec<u8>> = None;
    let mut file_over = None;
    while let Some(part) = form.next_part().await? {
        let mut bytes = Vec::new();
        let mut over = false;
        while let Some(chunk) = form.next_chunk().await? {
            // Read on, kept no more: the fields after it still count, and
            // the role comes before the size (core says which).
            over |= (bytes.len() + chunk.len()) as u64 > max;
            if over {
                bytes = Vec::new();
                continue;
            }
            bytes.extend_from_slice(&chunk);
        }
        if over {
            if part.field != "file" {
                return Err(Error::FileTooLarge(max).into());
            }
            file_over = Some(max);
        }
        if part.field == "file" {
            file = Some(bytes);
        } else {
            fields.insert(part.field, String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    let mut errors = ValidationErrors::default();
    let workspace = match fields.get("tenantId").map(|t| WorkspaceId::parse(t.trim())) {
        Some(Some(ws)) => Some(ws),
        Some(None) => {
            errors.field("tenantId", "Not a workspace id");
            None
        }
        None => {
            errors.field("tenantId", "Required");
            None
        }
    };
    let project = fields
        .get("projectId")
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty());
    let dry_run = match fields.get("dryRun").map(|d| d.trim()) {
        None | Some("false") | Some("") => false,
        Some("true") => true,
        Some(_) => {
            errors.field("dryRun", "Expected true or false");
            false
        }
    };
    let members = match fields.get("members").map(|m| members(m)) {
        None => BTreeMap::new(),
        Some(Ok(m)) => m,
        Some(Err(message)) => {
            errors.field("members", message);
            BTreeMap::new()
        }
    };
    let Some(workspace_id) = workspace.filter(|_| errors.is_empty()) else {
        return Err(Error::Validation(errors).into());
    };
    let file = file.ok_or_else(|| {
        Error::NoFile("the form has no file: send the Trello export in the field `file`".into())
    })?;
    let import = TrelloImport {
        workspace_id,
        project_id: project,
        members,
        dry_run,
        importer: None,
        file_over,
    };
    Ok((import, file))
}

/// The `members` field: a JSON object from Trello member id or username to
/// account id.
fn members(text: &str) -> Result<BTreeMap<String, AccountId>, String> {
    const SHAPE: &str = "Expected a JSON object from Trello member id or username to account id";
    let value: serde_json::Value = serde_json::from_str(text).map_err(|_| SHAPE.to_string())?;
    let object = value.as_object().ok_or(SHAPE)?;
    let mut out = BTreeMap::new();
    for (trello, account) in object {
        let id = account
            .as_str()
            .and_then(AccountId::parse)
            .ok_or_else(|| format!("{trello:?} maps to no account id: {SHAPE}"))?;
        out.insert(trello.clone(), id);
    }
    Ok(out)
}

/// The multipart form of `POST /api/imports/trello`: `file` is the Trello
/// export (board menu → Print, export and share → Export as JSON).
#[derive(ToSchema)]
#[allow(dead_code)] // a schema only: the handler reads the form
#[schema(rename_all = "camelCase")]
pub struct TrelloForm {
    // No doc comment here: on a required inline field, utoipa would wrap the
    // file's string schema in an `allOf` with an object, which no value meets.
    #[schema(inline)]
    pub file: FileBytes,
    /// The workspace.
    pub tenant_id: String,
    /// A project of it: its column set in effect takes the cards.
    pub project_id: Option<String>,
    /// A JSON object from Trello member id or username to account id.
    pub members: Option<String>,
    /// `true`: answer the summary, write nothing.
    pub dry_run: Option<bool>,
}
