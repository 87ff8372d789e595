//! Comments: Markdown stored byte for byte, in chronological order
//! (`createdAt`, then a `seq` after every comment of the card:
//! `Backend::new_comment_seq_sql`), each with the images bound to it. A plain
//! new comment takes no lock (`Board::write_at_commit`: its card's foreign key
//! guards it): comments are added to one card at once, and on PostgreSQL they
//! may commit in another order than their times and seqs, so the time orders
//! them. Every other write of a card's comments takes the card's lock.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;

use crate::access::{Actor, Caller, Role};
use crate::attachments::{self, Attachment};
use crate::board::Board;
use crate::cards::{CardList, COMMENT_COUNT_SQL};
use crate::change::Change;
use crate::error::{is_foreign_key_violation, Error, Result, Rule};
use crate::etag::{Conditional, IfMatch, IfNoneMatch, Saved};
use crate::ids::{AccountId, AttachmentId, CardId, CommentId, WorkspaceId};
use crate::markdown;
use crate::markdown::ThreadQuery;
use crate::notifications::Notice;
use crate::search::index;
use crate::store::{self, Deferred, Lock, WriteTx};
use crate::text::CommentText;
use crate::time::{now, Timestamp};
use crate::validate::{self, Fields, FromJson, Input};

/// A comment with its images.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    /// Its id.
    pub id: CommentId,
    /// Its card.
    pub card_id: CardId,
    /// The Markdown, exactly as sent.
    pub content: String,
    /// The account that wrote it (api.md §17); null when the CLI wrote it,
    /// or when its account was removed.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub author_id: Option<AccountId>,
    /// When it was created.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub created_at: Timestamp,
    /// When it last changed.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub updated_at: Timestamp,
    /// The images bound to it, oldest first.
    pub attachments: Vec<Attachment>,
    /// The Markdown rendered to safe HTML (`contentHtml`), only when the
    /// thread was read with `?html=true` (api.md §24).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_html: Option<String>,
}

/// `comments`, each with its HTML when `html`.
fn render(mut comments: Vec<Comment>, html: bool) -> Vec<Comment> {
    if html {
        for c in &mut comments {
            c.content_html = Some(markdown::to_html(&c.content));
        }
    }
    comments
}

/// `comment` as a write answers it (with its HTML when `html`), with the tag
/// of its card's thread at the versions `version` and `count`.
fn tagged(card: &CardId, version: i64, count: i64, comment: Comment, html: bool) -> Saved<Comment> {
    let tag = CardList::Comments.tag(card, version, count);
    let mut value = render(vec![comment], html);
    let value = value.pop().expect("one comment");
    let tag = if html { tag.rendered() } else { tag };
    Saved { tag, value }
}

/// A comment's row, read by position in [`COMMENT_COLUMNS`]'s order (a
/// lookup of each column by its name costs a hash for each field of each of
/// a thread's rows).
struct Row {
    id: CommentId,
    card_id: CardId,
    content: String,
    author_id: Option<AccountId>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

/// The body of `POST /api/cards/[id]/comments` and `PATCH /api/comments/[id]`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(rename_all = "camelCase")
)]
pub struct CommentInput {
    /// The Markdown (1..=50,000 characters, not blank; kept byte for byte).
    pub content: CommentText,
    /// Loose comment uploads of the card to bind. On update, the whole image
    /// list of the comment; `None` leaves the images unchanged.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub attachment_ids: Option<Vec<AttachmentId>>,
}

fn id_list(v: &Value) -> Result<Vec<AttachmentId>, String> {
    let items = v
        .as_array()
        .ok_or_else(|| "Expected array of cuid strings".to_string())?;
    let mut out: Vec<AttachmentId> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let id = validate::id(AttachmentId::parse)(item).map_err(|m| format!("[{i}]: {m}"))?;
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}

impl FromJson for CommentInput {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let content = f.required("content", validate::comment_text);
        let ids = f.optional("attachmentIds", id_list);
        f.finish()?;
        Ok(CommentInput {
            content: content.expect("checked"),
            attachment_ids: ids,
        })
    }
}

impl CommentInput {
    /// A comment of `content`, binding no image (on update: leaving the
    /// images as they are).
    ///
    /// ```
    /// use board_core::{CommentInput, CommentText};
    /// let input = CommentInput::new(CommentText::parse("Looks *good*")?);
    /// assert!(input.attachment_ids.is_none());
    /// # Ok::<(), board_core::Error>(())
    /// ```
    pub fn new(content: CommentText) -> CommentInput {
        CommentInput {
            content,
            attachment_ids: None,
        }
    }

    /// Binding the loose uploads `ids` (on update: the whole image list).
    pub fn attachments(mut self, ids: Vec<AttachmentId>) -> CommentInput {
        self.attachment_ids = Some(ids);
        self
    }
}

/// The columns of a comment's [`Row`], in the order it reads them.
const COMMENT_COLUMNS: &str = "id, card_id, content, author_id, created_at, updated_at";

/// A comment's [`Row`] as its columns come: [`COMMENT_COLUMNS`], in order.
type Columns = (String, String, String, Option<String>, String, String);

impl From<Columns> for Row {
    fn from((id, card_id, content, author_id, created_at, updated_at): Columns) -> Row {
        Row {
            id: CommentId::from_db(id),
            card_id: CardId::from_db(card_id),
            content,
            author_id: author_id.map(AccountId::from_db),
            created_at: Timestamp::from_db(created_at),
            updated_at: Timestamp::from_db(updated_at),
        }
    }
}

/// The columns of a thread's rows: [`COMMENT_COLUMNS`] but the card, which
/// the reader names (one text less to convert in each of a thread's rows).
const THREAD_COLUMNS: &str = "id, content, author_id, created_at, updated_at";

/// A thread's row as its columns come: [`THREAD_COLUMNS`], in order.
type ThreadColumns = (String, String, Option<String>, String, String);

impl Row {
    /// The row of a comment of `card`'s thread.
    fn of_thread(card: &CardId, (id, content, author, created, updated): ThreadColumns) -> Row {
        let card = card.to_string();
        Row::from((id, card, content, author, created, updated))
    }
}

impl<'r> sqlx::FromRow<'r, AnyRow> for Row {
    fn from_row(row: &'r AnyRow) -> std::result::Result<Self, sqlx::Error> {
        Columns::from_row(row).map(Row::from)
    }
}

/// What a change to a comment may do besides its author (api.md §17).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Intent {
    /// `PATCH`: its author only.
    Edit,
    /// `DELETE`: its author, or an ADMIN of its workspace.
    Delete,
}

/// Comments: the operations of `comments.rs`.
impl Board {
    /// A comment's card and workspace, once `actor` may make `change` to it:
    /// 404 when the comment does not exist, 403 when the actor does not reach
    /// the workspace as a MEMBER, 403 `NOT_AUTHOR` when the comment is not
    /// the actor's to change. The operator (the CLI, which writes comments
    /// without an author) edits only comments without an author, and deletes
    /// any comment, as an ADMIN of every workspace would.
    async fn comment_home(
        &self,
        actor: &Actor,
        id: &CommentId,
        change: Intent,
    ) -> Result<(CardId, WorkspaceId, String)> {
        let row: Option<(CardId, WorkspaceId, Option<AccountId>, String)> = sqlx::query_as(
            "SELECT c.card_id, k.workspace_id, c.author_id, c.content FROM comments c \
             JOIN cards k ON k.id = c.card_id WHERE c.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let (card, workspace, author, content) = row.ok_or(Error::NotFound("comment"))?;
        self.require(&self.pool, actor, &workspace, Role::Member)
            .await?;
        if actor.account() == author.as_ref() {
            return Ok((card, workspace, content));
        }
        if change == Intent::Delete {
            // Only a missing role makes the delete the author's alone: a
            // database that fails here is a failure, not NOT_AUTHOR.
            match self
                .require(&self.pool, actor, &workspace, Role::Admin)
                .await
            {
                Ok(()) => return Ok((card, workspace, content)),
                Err(Error::Forbidden(_)) => {}
                Err(other) => return Err(other),
            }
        }
        Err(Error::NotAuthor(match change {
            Intent::Edit => "only its author can edit a comment",
            Intent::Delete => "only its author or an ADMIN of the workspace can delete a comment",
        }))
    }

    /// A card's comments in chronological order, each with its images (Viewer).
    pub async fn card_comments(&self, actor: &Actor, card: &CardId) -> Result<Vec<Comment>> {
        self.reach_card(actor, card, Role::Viewer).await?;
        self.comments_of(card).await
    }

    /// A card's comments with their tag (api.md §22), or only the tag when
    /// `cond` names it (Viewer): a 304 costs one statement.
    /// A [`Caller::Bearer`]'s token is checked by that statement.
    ///
    /// Without a condition that statement reads the card's version alone, and
    /// the tag's number of comments is the number the payload's statement
    /// returns, read after it: the thread is not counted twice (a `COUNT(*)`
    /// over 4,000 comments, 1.6–3.6 ms on PostgreSQL; BENCHMARKS). Such a tag
    /// is never newer than its payload: a write under the card's lock
    /// between the two statements leaves the tag an older version, which no
    /// later tag has again, so it never answers 304 to a changed thread.
    ///
    /// With [`ThreadQuery::html`] (`?html=true`, api.md §24) each comment
    /// also carries `contentHtml`, its Markdown rendered to safe HTML
    /// (`markdown.rs`), under a tag of its own. A query that is neither
    /// `true` nor `false` is a 422 on `html`, after the access check.
    pub async fn card_comments_if<'c>(
        &self,
        caller: impl Into<Caller<'c>>,
        card: &CardId,
        query: &ThreadQuery,
        cond: &IfNoneMatch,
    ) -> Result<Conditional<Vec<Comment>>> {
        if cond.is_set() {
            let tag = self
                .card_list_tag(caller.into(), card, CardList::Comments)
                .await?;
            let html = query.wants_html()?;
            let tag = if html { tag.rendered() } else { tag };
            let read = async { Ok(render(self.comments_of(card).await?, html)) };
            return Conditional::answer(tag, cond, read).await;
        }
        let (version, _) = self
            .card_list_versions(caller.into(), card, CardList::CommentsVersion)
            .await?;
        let html = query.wants_html()?;
        let comments = self.comments_of(card).await?;
        let count = i64::try_from(comments.len())
            .map_err(|_| Error::Internal("a thread longer than i64".into()))?;
        let tag = CardList::Comments.tag(card, version, count);
        match html {
            true => Ok(Conditional::Modified(
                tag.rendered(),
                render(comments, true),
            )),
            false => Ok(Conditional::Modified(tag, comments)),
        }
    }

    /// The comments of a card, each with its images: the two reads at once,
    /// on two connections.
    async fn comments_of(&self, card: &CardId) -> Result<Vec<Comment>> {
        // A big read (`store::big_read`).
        let rows = store::big_read::<ThreadColumns, _>(
            &self.pool,
            self.backend,
            THREAD_COLUMNS,
            "FROM comments WHERE card_id = $1",
            "created_at, seq",
            card,
        );
        let images = attachments::select(
            &self.pool,
            "WHERE card_id = $1 AND comment_id IS NOT NULL ORDER BY created_at, id",
            card,
        );
        let (rows, images) = tokio::try_join!(rows, images)?;
        let mut by_comment: HashMap<CommentId, Vec<Attachment>> = HashMap::new();
        for a in images {
            if let Some(key) = a.comment_id.clone() {
                by_comment.entry(key).or_default().push(a);
            }
        }
        Ok(rows
            .into_iter()
            .map(|r| {
                let r = Row::of_thread(card, r);
                let images = by_comment.remove(&r.id).unwrap_or_default();
                with_images(r, images)
            })
            .collect())
    }

    /// Adds a comment at the end of the card's thread (Member), binding the
    /// loose uploads named in `attachmentIds` in the same transaction.
    /// A [`Caller::Bearer`]'s token is checked by the statement that finds the
    /// card, and the comment is its account's.
    pub async fn create_comment<'c>(
        &self,
        caller: impl Into<Caller<'c>>,
        card: &CardId,
        input: impl Into<Input<CommentInput>>,
    ) -> Result<Comment> {
        let plain = ThreadQuery::default();
        let saved = self.save_comment(caller, card, input, &plain).await?;
        Ok(saved.value)
    }

    /// [`Board::create_comment`], answering the comment (with `contentHtml`
    /// when `query` asks for it) and the new tag of the card's comments in
    /// that representation (api.md §22), so a client saves in one request. A
    /// `query` that is neither `true` nor `false` is a 422 on `html`, with the
    /// body's check, and nothing changes.
    ///
    /// The tag is made of the versions read with the card, and the count one
    /// higher: the thread as it is just after this comment, when nothing else
    /// came between. Another comment committed in between makes it a tag of
    /// no later thread (comments are only added between two writes under the
    /// card's lock), so at worst the client reads the thread once more.
    pub async fn save_comment<'c>(
        &self,
        caller: impl Into<Caller<'c>>,
        card: &CardId,
        input: impl Into<Input<CommentInput>>,
        query: &ThreadQuery,
    ) -> Result<Saved<Comment>> {
        let reach = self
            .reach_card_as(caller.into(), card, Role::Member)
            .await?;
        let (ws, (version, count)) = (reach.workspace, reach.versions);
        let actor = reach.actor.as_ref();
        let mut input = input.into().open()?;
        let html = query.wants_html()?;
        let ids = input.attachment_ids.take().unwrap_or_default();
        // A plain comment only adds rows: no lock, and its BEGIN, INSERT,
        // words, event and COMMIT go in one round trip, so writers adding
        // comments to one card go on together. The card's foreign key keeps
        // the card until the commit (a card deleted since the reach above is
        // a 404 then). Binding images changes uploads other writers may bind
        // or delete: the card's lock.
        let (mut tx, version) = match ids.is_empty() {
            true => (self.write_at_commit().await?, version),
            // The lock advances the card's version.
            false => {
                let (tx, before) = self.write_at(Lock::Card(card)).await?;
                (tx, before + 1)
            }
        };
        let id = CommentId::new();
        let at = now();
        let author = actor.account();
        // Every value is known here (the `seq`, taken in SQL, is not part of
        // the comment's JSON), so the INSERT needs no answer.
        let insert = Deferred::new(
            insert_sql(self.backend),
            vec![
                store::Value::text(&id),
                store::Value::text(card),
                store::Value::text(&input.content),
                store::Value::opt(author),
                store::Value::text(&at),
            ],
        );
        let row = Row {
            id: id.clone(),
            card_id: card.clone(),
            content: input.content.as_str().to_string(),
            author_id: author.cloned(),
            created_at: at.clone(),
            updated_at: at,
        };
        let doc = index::Doc {
            id: id.as_str(),
            workspace: ws.as_str(),
            card: card.as_str(),
            text: &row.content,
        };
        // A plain comment defers its INSERT and its words to the commit's round
        // trip; binding images reads what the INSERT wrote.
        let comment = if ids.is_empty() {
            tx.defer(insert);
            index::defer_write(&mut tx, doc, false);
            with_images(row, Vec::new())
        } else {
            insert.run(&mut tx).await?;
            index::write(&mut tx, doc, false).await?;
            bind_loose(&mut tx, card, &id, &ids).await?;
            load(&mut tx, &id).await?
        };
        // Those it names and the card's watchers hear of it, with the commit;
        // on a card that nobody but the author watches (as read by the reach),
        // only those it names, and without a mention no statement at all.
        let notice = Notice::new(&ws, card, author, comment.created_at.clone())
            .excerpt(&comment.content)
            .mentions(&comment.content, None);
        match reach.others_watch {
            true => notice.watchers("commented").defer(&mut tx),
            false => notice.defer(&mut tx),
        }
        tx.emit(Change::new("comment.created", &ws, actor, &comment, &[]));
        tx.commit()
            .await
            .map_err(|e| match is_foreign_key_violation(&e) {
                true => Error::NotFound("card"),
                false => e,
            })?;
        Ok(tagged(card, version, count + 1, comment, html))
    }

    /// Replaces a comment's content (Member, and its author: 403 `NOT_AUTHOR`
    /// otherwise, before the body is checked). A given `attachmentIds` is the
    /// whole image list: new loose uploads are bound, bound images not listed
    /// are deleted with their files; absent leaves the images as they are.
    pub async fn update_comment(
        &self,
        actor: &Actor,
        id: &CommentId,
        input: impl Into<Input<CommentInput>>,
    ) -> Result<Comment> {
        self.update_comment_if(actor, id, input, &IfMatch::none())
            .await
    }

    /// [`Board::update_comment`] under an `If-Match` condition (api.md §22):
    /// under the card's lock, the card's comments must still have a tag `cond`
    /// names (the tag of [`Board::card_comments_if`]), else
    /// `PRECONDITION_FAILED` and nothing changes.
    pub async fn update_comment_if(
        &self,
        actor: &Actor,
        id: &CommentId,
        input: impl Into<Input<CommentInput>>,
        cond: &IfMatch,
    ) -> Result<Comment> {
        let plain = ThreadQuery::default();
        let saved = self.edit_comment(actor, id, input, cond, &plain).await?;
        Ok(saved.value)
    }

    /// [`Board::update_comment_if`], answering the comment (with
    /// `contentHtml` when `query` asks for it) and the new tag of the card's
    /// comments in that representation (api.md §22). A `query` that is
    /// neither `true` nor `false` is a 422 on `html`, with the body's check,
    /// and nothing changes. The tag is the version the card's lock gave and
    /// the count read under it (a plain comment added meanwhile makes it the
    /// tag of no later thread: at worst a client reads once more).
    pub async fn edit_comment(
        &self,
        actor: &Actor,
        id: &CommentId,
        input: impl Into<Input<CommentInput>>,
        cond: &IfMatch,
        query: &ThreadQuery,
    ) -> Result<Saved<Comment>> {
        // The content before, for the names this edit adds (read with the
        // access check; an edit racing another edit of the same author's
        // comment may compare with the text before that one).
        let (card, workspace, before) = self.comment_home(actor, id, Intent::Edit).await?;
        let input = input.into().open()?;
        let html = query.wants_html()?;
        // The comments' count is read after the lock, in its round trip, from
        // the counts kept (as the tag's reads read it), never by counting the
        // thread. A comment being added meanwhile (it takes no lock) is
        // counted once committed: this edit is then ordered before it, as the
        // tag it compared says.
        let count = Deferred::new(COMMENT_COUNT_SQL.as_str(), vec![store::Value::text(&card)]);
        let (mut tx, version, rows) = self.write_reading(Lock::Card(&card), Some(&count)).await?;
        let row = rows
            .first()
            .ok_or_else(|| Error::Internal("the count of a card's comments was not read".into()))?;
        let count: i64 = sqlx::Row::try_get(row, "comment_count")?;
        cond.check_any(
            || {
                let tag = CardList::Comments.tag(&card, version, count);
                // The thread as Markdown, or as HTML (`?html=true`).
                Ok(vec![tag.rendered(), tag])
            },
            "the card's comments changed since they were read",
        )?;
        let sql = format!(
            "UPDATE comments SET content = $2, updated_at = $3 WHERE id = $1 \
             RETURNING {COMMENT_COLUMNS}"
        );
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(&input.content)
            .bind(now())
            .fetch_optional(&mut *tx)
            .await?;
        let row = row.ok_or(Error::NotFound("comment"))?;
        let doc = index::Doc {
            id: id.as_str(),
            workspace: workspace.as_str(),
            card: card.as_str(),
            text: input.content.as_ref(),
        };
        let mut removed = Vec::new();
        let comment = match &input.attachment_ids {
            None => {
                let images = attachments::select(
                    &mut *tx,
                    "WHERE comment_id = $1 ORDER BY created_at, id",
                    id,
                )
                .await?;
                // Nothing reads the index back: its words go with the commit.
                index::defer_write(&mut tx, doc, true);
                with_images(row, images)
            }
            Some(wanted) => {
                index::write(&mut tx, doc, true).await?;
                let bound = attachments::select(&mut *tx, "WHERE comment_id = $1", id).await?;
                let wanted_set: BTreeSet<&AttachmentId> = wanted.iter().collect();
                let bound_set: BTreeSet<&AttachmentId> = bound.iter().map(|a| &a.id).collect();
                for a in bound.iter().filter(|a| !wanted_set.contains(&a.id)) {
                    sqlx::query("DELETE FROM attachments WHERE id = $1")
                        .bind(&a.id)
                        .execute(&mut *tx)
                        .await?;
                    removed.push(a.stored_name.clone());
                }
                let new: Vec<AttachmentId> = wanted
                    .iter()
                    .filter(|w| !bound_set.contains(w))
                    .cloned()
                    .collect();
                bind_loose(&mut tx, &card, id, &new).await?;
                load(&mut tx, id).await?
            }
        };
        // Only the names this edit adds hear of it.
        Notice::new(
            &workspace,
            &card,
            actor.account(),
            comment.updated_at.clone(),
        )
        .excerpt(&comment.content)
        .mentions(&comment.content, Some(&before))
        .defer(&mut tx);
        tx.emit(Change::new(
            "comment.updated",
            &workspace,
            actor,
            &comment,
            &[],
        ));
        tx.commit().await?;
        self.remove_files(&removed).await;
        Ok(tagged(&card, version + 1, count, comment, html))
    }

    /// Deletes a comment with its images and their files (Member, and its
    /// author or an ADMIN of the workspace: 403 `NOT_AUTHOR` otherwise).
    pub async fn delete_comment(&self, actor: &Actor, id: &CommentId) -> Result<()> {
        let (card, workspace, _) = self.comment_home(actor, id, Intent::Delete).await?;
        let mut tx = self.write(Lock::Card(&card)).await?;
        let files: Vec<String> =
            sqlx::query_scalar("SELECT stored_name FROM attachments WHERE comment_id = $1")
                .bind(id)
                .fetch_all(&mut *tx)
                .await?;
        sqlx::query("DELETE FROM attachments WHERE comment_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let gone = sqlx::query("DELETE FROM comments WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if gone.rows_affected() == 0 {
            return Err(Error::NotFound("comment"));
        }
        index::forget(&mut tx, id).await?;
        let event = Change::deleted("comment.deleted", &workspace, actor, &id).on_card(&card, None);
        tx.emit(event);
        tx.commit().await?;
        self.remove_files(&files).await;
        Ok(())
    }
}

fn with_images(r: Row, attachments: Vec<Attachment>) -> Comment {
    Comment {
        id: r.id,
        card_id: r.card_id,
        content: r.content,
        author_id: r.author_id,
        created_at: r.created_at,
        updated_at: r.updated_at,
        attachments,
        content_html: None,
    }
}

/// Binds loose COMMENT uploads of `card` to `comment` with one set-based
/// UPDATE; if it matches fewer rows than ids, some id was not a loose upload
/// of this card: `INVALID_ATTACHMENT` (the caller's transaction rolls back).
async fn bind_loose(
    tx: &mut WriteTx,
    card: &CardId,
    comment: &CommentId,
    ids: &[AttachmentId],
) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "UPDATE attachments SET comment_id = $1 WHERE card_id = $2 AND scope = 'COMMENT' \
         AND comment_id IS NULL AND id IN ({})",
        crate::store::placeholders(3, ids.len())
    );
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(comment)
        .bind(card);
    for id in ids {
        q = q.bind(id);
    }
    let bound = q.execute(&mut **tx).await?;
    if bound.rows_affected() != ids.len() as u64 {
        return Err(Error::rule(
            Rule::InvalidAttachment,
            "attachmentIds may only name loose comment uploads of this card",
        ));
    }
    Ok(())
}

/// A comment with its images, read inside the transaction.
async fn load(tx: &mut WriteTx, id: &CommentId) -> Result<Comment> {
    let sql = format!("SELECT {COMMENT_COLUMNS} FROM comments WHERE id = $1");
    let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_one(&mut **tx)
        .await?;
    let images = attachments::select(
        &mut **tx,
        "WHERE comment_id = $1 ORDER BY created_at, id",
        id,
    )
    .await?;
    Ok(with_images(row, images))
}

/// The text of a new comment's `INSERT` (its `seq` taken in SQL).
pub(crate) fn insert_sql(backend: store::Backend) -> String {
    format!(
        "INSERT INTO comments (id, card_id, seq, content, author_id, created_at, updated_at) \
         VALUES ($1, $2, {}, $3, $4, $5, $5)",
        backend.new_comment_seq_sql()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_is_kept_and_checked() {
        let body = json!({"content": "  *hi*  \n", "attachmentIds": []});
        let c = CommentInput::from_json(&body).unwrap();
        assert_eq!(c.content, "  *hi*  \n");
        assert_eq!(c.attachment_ids, Some(vec![]));
        assert!(CommentInput::from_json(&json!({"content": " \n\t"})).is_err());
        assert!(CommentInput::from_json(&json!({"content": "é".repeat(50_000)})).is_ok());
        assert!(CommentInput::from_json(&json!({"content": "é".repeat(50_001)})).is_err());
        assert!(
            CommentInput::from_json(&json!({"content": "x", "attachmentIds": ["nope"]})).is_err()
        );
        assert!(CommentInput::from_json(&json!({"content": "x", "attachmentIds": "a"})).is_err());
        assert!(CommentInput::from_json(&json!({"attachmentIds": []})).is_err());
    }
}
