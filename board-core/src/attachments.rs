//! Attachments: uploads (streamed to temporary files against the size limit,
//! typed by content, all or nothing), the card's list, deletion, and the
//! access-checked download.

use std::future::Future;

use serde::Serialize;
use sqlx::{Any, Executor};
use tokio::io::AsyncWriteExt;

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::cards::CardList;
use crate::change::Change;
use crate::detect::{self, TextCheck, HEAD_LEN};
use crate::error::{Error, Result};
use crate::etag::{Conditional, IfNoneMatch};
use crate::files::FileReader;
use crate::ids::{is_cuid, AccountId, AttachmentId, CardId, CommentId, WorkspaceId};
use crate::store::Lock;
use crate::time::now;

/// Where an attachment belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum Scope {
    /// Attached to the card (`POST /api/cards/[id]/attachments`).
    Card,
    /// An image for a comment, loose until a comment binds it.
    Comment,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::Card => "CARD",
            Scope::Comment => "COMMENT",
        }
    }
}

/// An attachment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    /// Its id.
    pub id: AttachmentId,
    /// The generated name the bytes are stored under.
    pub stored_name: String,
    /// The name the file was sent with (data only, never a path).
    pub original_name: String,
    /// The type detected from the content.
    pub mime_type: String,
    /// Its size in bytes.
    pub size: i64,
    /// `/api/files/<storedName>`.
    pub url: String,
    /// `CARD` or `COMMENT`.
    pub scope: Scope,
    /// The comment it is bound to (`None` for card attachments and loose uploads).
    pub comment_id: Option<CommentId>,
    /// The account that uploaded it (api.md §17); null when the CLI did, and
    /// for files uploaded before this field existed.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub uploaded_by: Option<AccountId>,
    #[serde(skip)]
    pub(crate) card_id: CardId,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: AttachmentId,
    card_id: CardId,
    comment_id: Option<CommentId>,
    scope: String,
    stored_name: String,
    original_name: String,
    mime_type: String,
    size: i64,
    uploaded_by: Option<AccountId>,
}

impl From<Row> for Attachment {
    fn from(r: Row) -> Self {
        Attachment {
            url: format!("/api/files/{}", r.stored_name),
            scope: if r.scope == "CARD" {
                Scope::Card
            } else {
                Scope::Comment
            },
            id: r.id,
            stored_name: r.stored_name,
            original_name: r.original_name,
            mime_type: r.mime_type,
            size: r.size,
            comment_id: r.comment_id,
            uploaded_by: r.uploaded_by,
            card_id: r.card_id,
        }
    }
}

pub(crate) const ATTACHMENT_SELECT: &str =
    "SELECT id, card_id, comment_id, scope, stored_name, original_name, mime_type, size, \
     uploaded_by FROM attachments";

/// Loads attachments with a `WHERE …` clause on `$1`, bound to `key` (an id).
pub(crate) async fn select<'e, E, K>(exec: E, clause: &str, key: &K) -> Result<Vec<Attachment>>
where
    E: Executor<'e, Database = Any>,
    K: for<'q> sqlx::Encode<'q, Any> + sqlx::Type<Any> + Sync,
{
    let sql = format!("{ATTACHMENT_SELECT} {clause}");
    let q = sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(sql)).bind(key);
    Ok(q.fetch_all(exec)
        .await?
        .into_iter()
        .map(Into::into)
        .collect())
}

impl Attachment {
    /// `Content-Disposition` per RFC 6266: `inline` for images, `attachment`
    /// otherwise, with an ASCII fallback name and the UTF-8 original.
    pub fn content_disposition(&self) -> String {
        let kind = if detect::is_image(&self.mime_type) {
            "inline"
        } else {
            "attachment"
        };
        let fallback: String = self
            .original_name
            .chars()
            .map(|c| match c {
                ' '..='~' if c != '"' && c != '\\' => c,
                _ => '_',
            })
            .collect();
        let mut encoded = String::new();
        for b in self.original_name.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => encoded.push(b as char),
                b'!' | b'#' | b'$' | b'&' | b'+' | b'-' | b'.' | b'^' | b'_' | b'`' | b'|'
                | b'~' => encoded.push(b as char),
                _ => encoded.push_str(&format!("%{b:02X}")),
            }
        }
        format!("{kind}; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
    }
}

/// One part of a multipart upload, as [`UploadSource::next_part`] announces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartInfo {
    /// The form field name (`files` or `file` carry files; others are skipped).
    pub field: String,
    /// The file name the client sent, if any.
    pub file_name: Option<String>,
}

/// A multipart upload read part by part and chunk by chunk. The server adapts
/// its request body to this; an operation only starts reading it after its
/// access checks, and stops at the size limit.
pub trait UploadSource: Send {
    /// A chunk of a part's bytes.
    type Chunk: AsRef<[u8]> + Send;
    /// Moves to the next part (skipping what is left of the current one);
    /// `None` at the end of the body.
    fn next_part(&mut self) -> impl Future<Output = Result<Option<PartInfo>>> + Send;
    /// The next chunk of the current part; `None` at its end.
    fn next_chunk(&mut self) -> impl Future<Output = Result<Option<Self::Chunk>>> + Send;
}

/// The most characters an original file name keeps (api.md §21).
pub(crate) const MAX_FILE_NAME: usize = 255;

/// The longest extension (with its dot) a shortened name keeps whole; a
/// longer "extension" is not one, and the name is simply cut.
const MAX_KEPT_EXTENSION: usize = 32;

/// The sent file name, kept as data: control characters (NUL included, which
/// no backend stores as text) become `_`; no name, or an empty one, is `file`;
/// a name over [`MAX_FILE_NAME`] characters is cut to that many, keeping its
/// extension (the text from its last dot, when at most 32 characters).
fn clean_file_name(name: Option<String>) -> String {
    let name: Vec<char> = name
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_control() { '_' } else { c })
        .collect();
    if name.is_empty() {
        return "file".into();
    }
    if name.len() <= MAX_FILE_NAME {
        return name.into_iter().collect();
    }
    let ext = match name.iter().rposition(|&c| c == '.') {
        Some(dot) if dot > 0 && name.len() - dot <= MAX_KEPT_EXTENSION => &name[dot..],
        _ => &[][..],
    };
    name[..MAX_FILE_NAME - ext.len()]
        .iter()
        .chain(ext)
        .collect()
}

/// A file written under its temporary name, waiting for its row.
struct Pending {
    stored_name: String,
    original_name: String,
    mime_type: &'static str,
    size: u64,
}

/// Attachments: the operations of `attachments.rs`.
impl Board {
    /// The card's attachment row by id; 404 when it does not exist.
    async fn find_attachment<K>(&self, clause: &str, key: &K) -> Result<Attachment>
    where
        K: for<'q> sqlx::Encode<'q, Any> + sqlx::Type<Any> + Sync,
    {
        select(&self.pool, clause, key)
            .await?
            .pop()
            .ok_or(Error::NotFound("attachment"))
    }

    /// The checks every upload starts with: the card exists (404), the actor
    /// writes in its workspace (403), attachments are on (403).
    /// The card's workspace, once the actor may upload to the card.
    async fn upload_allowed(&self, actor: &Actor, card: &CardId) -> Result<WorkspaceId> {
        let found = self.find_card(&self.pool, card).await?;
        self.require(&self.pool, actor, &found.workspace_id, Role::Member)
            .await?;
        if !self.attachments_enabled {
            return Err(Error::AttachmentsDisabled);
        }
        Ok(found.workspace_id)
    }

    /// Uploads images for a comment of `card` (Member): stored loose with scope
    /// COMMENT until a comment binds them. PNG, JPEG, GIF, WebP only.
    pub async fn upload_comment_images<S: UploadSource>(
        &self,
        actor: &Actor,
        card: &CardId,
        source: &mut S,
    ) -> Result<Vec<Attachment>> {
        let ws = self.upload_allowed(actor, card).await?;
        self.store_upload((actor, &ws), card, Scope::Comment, source)
            .await
    }

    /// Attaches files to `card` (Member): images, PDF, zip, Office Open XML and
    /// plain text.
    pub async fn attach_files<S: UploadSource>(
        &self,
        actor: &Actor,
        card: &CardId,
        source: &mut S,
    ) -> Result<Vec<Attachment>> {
        let ws = self.upload_allowed(actor, card).await?;
        self.store_upload((actor, &ws), card, Scope::Card, source)
            .await
    }

    /// Reads every file part to a temporary file, then commits all rows in one
    /// transaction and publishes the files. Any failure discards every temporary.
    async fn store_upload<S: UploadSource>(
        &self,
        by: (&Actor, &WorkspaceId),
        card: &CardId,
        scope: Scope,
        source: &mut S,
    ) -> Result<Vec<Attachment>> {
        let mut pending: Vec<Pending> = Vec::new();
        let mut temps: Vec<String> = Vec::new();
        let read = self
            .read_parts(scope, source, &mut pending, &mut temps)
            .await;
        let result = match read {
            Ok(()) if pending.is_empty() => Err(Error::NoFile(
                "the upload holds no file (form field `files` or `file`)".into(),
            )),
            Ok(()) => self.insert_rows(by, card, scope, &pending).await,
            Err(e) => Err(e),
        };
        match result {
            Ok(rows) => {
                for p in &pending {
                    self.store.publish(&p.stored_name).await?;
                }
                Ok(rows)
            }
            Err(e) => {
                self.discard_files(&temps).await;
                Err(e)
            }
        }
    }

    async fn read_parts<S: UploadSource>(
        &self,
        scope: Scope,
        source: &mut S,
        pending: &mut Vec<Pending>,
        temps: &mut Vec<String>,
    ) -> Result<()> {
        while let Some(part) = source.next_part().await? {
            if part.field != "files" && part.field != "file" {
                continue;
            }
            if pending.len() >= self.max_files_per_request {
                return Err(Error::TooManyFiles(self.max_files_per_request));
            }
            let stored_name = cuid2::create_id();
            temps.push(stored_name.clone());
            let mut out = self.store.create_temp(&stored_name).await?;
            let mut size: u64 = 0;
            let mut head: Vec<u8> = Vec::new();
            let mut text = TextCheck::default();
            while let Some(chunk) = source.next_chunk().await? {
                let chunk = chunk.as_ref();
                size += chunk.len() as u64;
                if size > self.max_attachment_bytes {
                    return Err(Error::FileTooLarge(self.max_attachment_bytes));
                }
                if head.len() < HEAD_LEN {
                    let take = chunk.len().min(HEAD_LEN - head.len());
                    head.extend_from_slice(&chunk[..take]);
                }
                if scope == Scope::Card {
                    text.feed(chunk);
                }
                out.write_all(chunk).await?;
            }
            out.shutdown().await?;
            drop(out);
            let original_name = clean_file_name(part.file_name);
            if size == 0 {
                return Err(Error::NoFile(format!(
                    "the file {original_name:?} is empty"
                )));
            }
            let mime_type = detect::accepted_type(&head, scope == Scope::Comment, text.finish())
                .ok_or_else(|| {
                    Error::UnsupportedFormat(format!(
                        "the content of {original_name:?} is not an accepted format: {}",
                        detect::accepted_formats(scope == Scope::Comment)
                    ))
                })?;
            pending.push(Pending {
                stored_name,
                original_name,
                mime_type,
                size,
            });
        }
        Ok(())
    }

    /// The rows of an upload, in one transaction with one
    /// `attachment.created` event per file.
    async fn insert_rows(
        &self,
        (actor, ws): (&Actor, &WorkspaceId),
        card: &CardId,
        scope: Scope,
        pending: &[Pending],
    ) -> Result<Vec<Attachment>> {
        let mut tx = self.write(Lock::Card(card)).await?;
        let mut ids = Vec::new();
        for p in pending {
            let id = AttachmentId::new();
            sqlx::query(
                "INSERT INTO attachments (id, card_id, comment_id, scope, stored_name, \
                 original_name, mime_type, size, created_at, uploaded_by) \
                 VALUES ($1, $2, NULL, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(&id)
            .bind(card)
            .bind(scope)
            .bind(&p.stored_name)
            .bind(&p.original_name)
            .bind(p.mime_type)
            .bind(p.size as i64)
            .bind(now())
            .bind(actor.account())
            .execute(&mut *tx)
            .await?;
            ids.push(id);
        }
        let mut rows = Vec::new();
        for id in &ids {
            rows.extend(select(&mut *tx, "WHERE id = $1", id).await?);
        }
        for row in &rows {
            let change = Change::new("attachment.created", ws, actor, row, &[]);
            tx.emit(change.on_card(&row.card_id, None));
        }
        tx.commit().await?;
        Ok(rows)
    }

    /// The card's CARD-scope attachments, oldest first (Viewer).
    pub async fn card_attachments(&self, actor: &Actor, card: &CardId) -> Result<Vec<Attachment>> {
        let found = self.find_card(&self.pool, card).await?;
        self.require(&self.pool, actor, &found.workspace_id, Role::Viewer)
            .await?;
        self.attachments_of(card).await
    }

    /// A card's CARD-scope attachments with their tag (api.md §22), or only
    /// the tag when `cond` names it (Viewer): a 304 costs one statement.
    pub async fn card_attachments_if(
        &self,
        actor: &Actor,
        card: &CardId,
        cond: &IfNoneMatch,
    ) -> Result<Conditional<Vec<Attachment>>> {
        let (_, tag) = self
            .reach_card_list(actor, card, CardList::Attachments)
            .await?;
        Conditional::answer(tag, cond, self.attachments_of(card)).await
    }

    /// The CARD-scope attachments of a card, oldest first.
    async fn attachments_of(&self, card: &CardId) -> Result<Vec<Attachment>> {
        select(
            &self.pool,
            "WHERE card_id = $1 AND scope = 'CARD' ORDER BY created_at, id",
            card,
        )
        .await
    }

    /// Deletes an attachment (Member): the row in a transaction, then its file.
    pub async fn delete_attachment(&self, actor: &Actor, id: &AttachmentId) -> Result<()> {
        let found = self.find_attachment("WHERE id = $1", id).await?;
        let card = self.find_card(&self.pool, &found.card_id).await?;
        self.require(&self.pool, actor, &card.workspace_id, Role::Member)
            .await?;
        let mut tx = self.write(Lock::Card(&found.card_id)).await?;
        let gone = sqlx::query("DELETE FROM attachments WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if gone.rows_affected() == 0 {
            return Err(Error::NotFound("attachment"));
        }
        let event = Change::deleted("attachment.deleted", &card.workspace_id, actor, &id)
            .on_card(&found.card_id, None);
        tx.emit(event);
        tx.commit().await?;
        self.remove_files(&[found.stored_name]).await;
        Ok(())
    }

    /// A stored file for download (Viewer of the owning workspace): its row and
    /// a reader with the length. A name that was not generated is 404.
    pub async fn open_file(
        &self,
        actor: &Actor,
        stored_name: &str,
    ) -> Result<(Attachment, FileReader, u64)> {
        if !is_cuid(stored_name) {
            return Err(Error::NotFound("file"));
        }
        // Only a missing row is a 404: a database that cannot be reached is
        // 503, like everywhere (api.md §21).
        let found = self
            .find_attachment("WHERE stored_name = $1", &stored_name.to_owned())
            .await
            .map_err(|e| match e {
                Error::NotFound(_) => Error::NotFound("file"),
                e => e,
            })?;
        let card = self.find_card(&self.pool, &found.card_id).await?;
        self.require(&self.pool, actor, &card.workspace_id, Role::Viewer)
            .await?;
        let (reader, len) = self
            .store
            .open(stored_name)
            .await?
            .ok_or(Error::NotFound("file"))?;
        Ok((found, reader, len))
    }
}

crate::ids::bind_as_text!(Scope);

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str, mime: &str) -> Attachment {
        Attachment {
            id: AttachmentId::from_db(String::new()),
            stored_name: String::new(),
            original_name: name.into(),
            mime_type: mime.into(),
            size: 1,
            url: String::new(),
            scope: Scope::Card,
            comment_id: None,
            uploaded_by: None,
            card_id: CardId::from_db(String::new()),
        }
    }

    #[test]
    fn long_names_keep_their_extension() {
        let long = format!("{}.pdf", "é".repeat(300));
        let short = clean_file_name(Some(long));
        assert_eq!(short.chars().count(), MAX_FILE_NAME);
        assert!(short.ends_with("é.pdf"), "{short}");
        let no_ext = clean_file_name(Some(format!("a.{}", "x".repeat(300))));
        assert_eq!(no_ext.chars().count(), MAX_FILE_NAME);
        assert!(no_ext.starts_with("a.xxx"));
        let exact = "y".repeat(MAX_FILE_NAME);
        assert_eq!(clean_file_name(Some(exact.clone())), exact);
        assert_eq!(clean_file_name(Some("a\u{1b}b".into())), "a_b");
        assert_eq!(clean_file_name(None), "file");
    }

    #[test]
    fn disposition_per_rfc_6266() {
        assert_eq!(
            named("a b.png", "image/png").content_disposition(),
            "inline; filename=\"a b.png\"; filename*=UTF-8''a%20b.png"
        );
        assert_eq!(
            named("résumé \"v2\".pdf", "application/pdf").content_disposition(),
            "attachment; filename=\"r_sum_ _v2_.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.pdf"
        );
    }
}
