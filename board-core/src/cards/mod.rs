//! Cards: create, read, rename, move, delete, and the board payload. The
//! reads are here, the writes of a card's place in `write.rs`.
//!
//! Every write locks the column set(s) it touches, so a card never lands in a
//! column that a concurrent transaction is deleting, and a move and its history
//! entry commit together.

use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::{Any, Executor, FromRow, Row};

use crate::access::{check_role, check_role_of, Actor, Role};
use crate::error::{Error, Result};
use serde::Serialize;

use crate::board::Board;
use crate::etag::{Conditional, ETag, IfNoneMatch, Saved};
use crate::ids::{AccountId, CardId, ColumnId, LabelId, ProjectId, WorkspaceId};
use crate::markdown::ThreadQuery;
use crate::order::Placement;
use crate::text::{Description, Name};
use crate::time::Timestamp;
use crate::validate::{self, Fields, FromJson};

/// The body of `POST /api/cards` (its wire schema: `openapi.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCard {
    /// The workspace (`tenantId`).
    pub workspace_id: WorkspaceId,
    /// The project, if any.
    pub project_id: Option<ProjectId>,
    /// The column; default: the first column of the set in effect.
    pub column_id: Option<ColumnId>,
    /// The title (trimmed, 1..=100 characters).
    pub title: Name,
    /// Where in the column (`beforeId` / `afterId` on the wire); default: its end.
    pub placement: Option<Placement>,
    /// Its description (api.md §24); default: empty.
    pub description: Description,
    /// When it is due; default: never.
    pub due_at: Option<Timestamp>,
    /// Its labels: labels of its workspace.
    pub label_ids: Vec<LabelId>,
    /// Its assignees, in this order: members of its workspace.
    pub assignee_ids: Vec<AccountId>,
}

/// The most labels or assignees one request may give a card.
pub const MAX_CARD_IDS: usize = 100;

impl NewCard {
    /// A card titled `title` in `workspace`, without a project, in the first
    /// column of the set in effect.
    ///
    /// ```
    /// # let (ws, todo) = (board_core::WorkspaceId::parse("ckv7q2x0a0000abcdefghijk").unwrap(), None);
    /// use board_core::{Name, NewCard};
    /// let card = NewCard::new(ws, Name::parse("Write the docs")?).in_column(todo);
    /// # Ok::<(), board_core::Error>(())
    /// ```
    pub fn new(workspace: WorkspaceId, title: Name) -> NewCard {
        NewCard {
            workspace_id: workspace,
            project_id: None,
            column_id: None,
            title,
            placement: None,
            description: Description::default(),
            due_at: None,
            label_ids: Vec::new(),
            assignee_ids: Vec::new(),
        }
    }

    /// In `project` (`None`: no project).
    pub fn in_project(mut self, project: Option<ProjectId>) -> NewCard {
        self.project_id = project;
        self
    }

    /// In `column` (`None`: the first column of the set in effect).
    pub fn in_column(mut self, column: Option<ColumnId>) -> NewCard {
        self.column_id = column;
        self
    }

    /// At `placement` in its column (`None`: at the end).
    pub fn placed(mut self, placement: Option<Placement>) -> NewCard {
        self.placement = placement;
        self
    }
}

impl FromJson for NewCard {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let tenant = f.required("tenantId", validate::id(WorkspaceId::parse));
        let project = f.nullable("projectId", validate::id(ProjectId::parse));
        let column = f.nullable("columnId", validate::id(ColumnId::parse));
        let title = f.required("title", validate::name);
        let placement = Placement::read(&mut f);
        let description = f.optional("description", validate::description);
        let due_at = f.nullable("dueAt", validate::timestamp);
        let labels = f.optional("labelIds", validate::ids(LabelId::parse, MAX_CARD_IDS));
        let assignees = f.optional("assigneeIds", validate::ids(AccountId::parse, MAX_CARD_IDS));
        f.finish()?;
        Ok(NewCard {
            workspace_id: tenant.expect("checked"),
            project_id: project,
            column_id: column,
            title: title.expect("checked"),
            placement,
            description: description.unwrap_or_default(),
            due_at,
            label_ids: labels.unwrap_or_default(),
            assignee_ids: assignees.unwrap_or_default(),
        })
    }
}

/// The body of `PATCH /api/cards/[id]`: a new title, a new column, a new place
/// in the column, or several of them (its wire schema: `openapi.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CardPatch {
    /// New title.
    pub title: Option<Name>,
    /// Column to move to (another column of the set in effect).
    pub column_id: Option<ColumnId>,
    /// Where in the target column (`beforeId` / `afterId` on the wire);
    /// default: the end of another column, or the card's place in its own.
    pub placement: Option<Placement>,
    /// New description (api.md §24).
    pub description: Option<Description>,
    /// New due time: `Some(None)` clears it (`null` on the wire).
    pub due_at: Option<Option<Timestamp>>,
}

impl CardPatch {
    /// Renames the card (start from `CardPatch::default()`, which changes nothing).
    pub fn title(mut self, title: Name) -> CardPatch {
        self.title = Some(title);
        self
    }

    /// Moves the card to `column`.
    pub fn column(mut self, column: ColumnId) -> CardPatch {
        self.column_id = Some(column);
        self
    }

    /// Puts the card at `placement` in its target column.
    pub fn placed(mut self, placement: Placement) -> CardPatch {
        self.placement = Some(placement);
        self
    }

    /// Sets the card's description.
    pub fn description(mut self, description: Description) -> CardPatch {
        self.description = Some(description);
        self
    }

    /// Sets when the card is due (`None`: never).
    pub fn due(mut self, due_at: Option<Timestamp>) -> CardPatch {
        self.due_at = Some(due_at);
        self
    }
}

impl FromJson for CardPatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let title = f.optional("title", validate::name);
        let column = f.optional("columnId", validate::id(ColumnId::parse));
        let placement = Placement::read(&mut f);
        let description = f.optional("description", validate::description);
        let due_at = f.present("dueAt", |v| match v {
            Value::Null => Ok(None),
            v => validate::timestamp(v).map(Some),
        });
        f.finish()?;
        Ok(CardPatch {
            title,
            column_id: column,
            placement,
            description,
            due_at,
        })
    }
}

/// A card as `GET /api/cards/[id]` answers it: with `descriptionHtml` when
/// asked for (`?html=true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CardView {
    /// The card.
    #[serde(flatten)]
    pub card: Card,
    /// Its description rendered to safe HTML (`markdown.rs`), only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description_html: Option<String>,
    /// Whether the caller watches the card (api.md §26): its own, in the
    /// answer of `GET /api/cards/[id]` only (never in an event, nor in a
    /// write's answer, whose tag is then the card's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watching: Option<bool>,
}

impl CardView {
    /// The view of `card` (with `descriptionHtml` when `html`) and its tag:
    /// the hash of the card's JSON, or of that tag for the HTML.
    pub(crate) fn tagged(
        card: Card,
        html: bool,
        watching: Option<bool>,
    ) -> Result<Saved<CardView>> {
        let tag = view_tag(&card, watching.unwrap_or(false))?;
        let (tag, description_html) = match html {
            true => (
                tag.rendered(),
                Some(crate::markdown::to_html(&card.description)),
            ),
            false => (tag, None),
        };
        let value = CardView {
            card,
            description_html,
            watching,
        };
        Ok(Saved { tag, value })
    }
}

/// The tag of a card as `GET /api/cards/[id]` answers it: the card's, or,
/// for a caller who watches it, another made from it.
fn view_tag(card: &Card, watching: bool) -> Result<ETag> {
    let tag = ETag::of_payload(CARD_TAG, card)?;
    Ok(match watching {
        true => tag.watched(),
        false => tag,
    })
}

impl Card {
    /// This card as a write answers it (api.md §22): with the tag that
    /// `GET /api/cards/[id]` (without `?html=true`) answers for it.
    pub fn saved(self) -> Result<Saved<Card>> {
        let tag = ETag::of_payload(CARD_TAG, &self)?;
        Ok(Saved { tag, value: self })
    }
}

/// The kind of a card's tag: the hash of its JSON.
const CARD_TAG: &str = "card";

mod board;
mod fields;
pub(crate) mod inputs;
mod marks;
mod parts;
mod reach;
mod watch;
mod write;

pub use board::{BoardColumn, BoardView};
pub use fields::Card;
pub(crate) use fields::{BoardRow, BOARD_COLUMNS, CARD_COLUMNS, RETURNED};
pub use parts::{IdList, Progress};

pub(crate) use write::{
    card_move_read_sql, card_read_sql, column_read_sql, move_at_commit_sql, MOVE_TO_END_SQL,
};

/// Cards: reads: the operations of `cards/mod.rs`.
impl Board {
    /// Loads a card; 404 when it does not exist.
    pub(crate) async fn find_card<'e, E>(&self, exec: E, id: &CardId) -> Result<Card>
    where
        E: Executor<'e, Database = Any>,
    {
        let sql = format!("SELECT {RETURNED} FROM cards WHERE id = $1");
        let card: Option<Card> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(exec)
            .await?;
        card.ok_or(Error::NotFound("card"))
    }

    /// A card (Viewer).
    pub async fn card(&self, actor: &Actor, id: &CardId) -> Result<Card> {
        self.reach_card(actor, id, Role::Viewer).await
    }

    /// A card with its tag (api.md §22), or only the tag when `cond` names
    /// it (Viewer). One statement: the tag is the hash of the card's JSON.
    pub async fn card_if(
        &self,
        actor: &Actor,
        id: &CardId,
        cond: &IfNoneMatch,
    ) -> Result<Conditional<Card>> {
        let card = self.reach_card(actor, id, Role::Viewer).await?;
        Conditional::of_payload(CARD_TAG, cond, card)
    }

    /// A card with its description rendered to safe HTML when `query` asks
    /// for it (`?html=true`, api.md §24: `descriptionHtml`), with its tag
    /// (the HTML has a tag of its own), or only the tag when `cond` names it
    /// (Viewer). A query that is neither `true` nor `false` is a 422 on
    /// `html`, after the access check.
    pub async fn card_view_if(
        &self,
        actor: &Actor,
        id: &CardId,
        query: &ThreadQuery,
        cond: &IfNoneMatch,
    ) -> Result<Conditional<CardView>> {
        let (card, watching) = self.reach_card_watching(actor, id, Role::Viewer).await?;
        let html = query.wants_html()?;
        let saved = CardView::tagged(card, html, Some(watching))?;
        Conditional::answer(saved.tag, cond, async { Ok(saved.value) }).await
    }

    /// The card, and the actor's reach of its workspace, in one statement:
    /// 404 when the card does not exist, then 403 below `min`.
    pub(crate) async fn reach_card(&self, actor: &Actor, id: &CardId, min: Role) -> Result<Card> {
        let account = match actor {
            Actor::Operator => return self.find_card(&self.pool, id).await,
            Actor::Session(s) => {
                let card = self.find_card(&self.pool, id).await?;
                check_role_of(s.role_in(&card.workspace_id), min)?;
                return Ok(card);
            }
            Actor::Account(a) => a,
        };
        let row = self.card_row(id, Some(account), "").await?;
        let role: Option<String> = row.try_get("role")?;
        check_role(role.as_deref(), min)?;
        Ok(Card::from_row(&row)?)
    }

    /// A card's row with the role of `account` in its workspace (`role`) and
    /// the `extra` columns; 404 when there is no such card.
    async fn card_row(
        &self,
        id: &CardId,
        account: Option<&AccountId>,
        extra: &str,
    ) -> Result<AnyRow> {
        let sql = format!(
            "SELECT {CARD_COLUMNS}{extra}, (SELECT role FROM memberships m \
                 WHERE m.workspace_id = k.workspace_id AND m.account_id = $2) AS role \
             FROM cards k WHERE k.id = $1"
        );
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(account)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(Error::NotFound("card"))
    }

    /// The card, the actor's reach (404, then 403 below Viewer) and the tag of
    /// one of its lists (api.md §22), in one statement. The tag comes from the
    /// versions the list's writes advance (see [`CardList`]), read before the
    /// list itself, so a tag is never newer than the payload it is sent with.
    pub(crate) async fn reach_card_list(
        &self,
        actor: &Actor,
        id: &CardId,
        list: CardList,
    ) -> Result<(Card, ETag)> {
        let (card, v1, v2) = self.reach_card_versions(actor, id, list).await?;
        Ok((card, list.tag(id, v1, v2)))
    }

    /// [`Board::reach_card_list`] with the list's two versions instead of its tag.
    pub(crate) async fn reach_card_versions(
        &self,
        actor: &Actor,
        id: &CardId,
        list: CardList,
    ) -> Result<(Card, i64, i64)> {
        self.reach_card_versions_for(actor, id, list, Role::Viewer)
            .await
    }

    /// [`Board::reach_card_versions`] for an operation that needs `min`.
    pub(crate) async fn reach_card_versions_for(
        &self,
        actor: &Actor,
        id: &CardId,
        list: CardList,
        min: Role,
    ) -> Result<(Card, i64, i64)> {
        let account = match actor {
            Actor::Account(a) => Some(a),
            Actor::Operator | Actor::Session(_) => None,
        };
        let (_, versions) = list.sql();
        let row = self.card_row(id, account, &format!(", {versions}")).await?;
        let card = Card::from_row(&row)?;
        check_reach(actor, &card, &row, min)?;
        Ok((card, row.try_get("v1")?, row.try_get("v2")?))
    }
}

/// The actor's reach of a card's workspace (403 below `min`), from a row that
/// selected `role`: the membership of an `Actor::Account`.
fn check_reach(actor: &Actor, card: &Card, row: &AnyRow, min: Role) -> Result<()> {
    match actor {
        Actor::Operator => Ok(()),
        Actor::Session(s) => check_role_of(s.role_in(&card.workspace_id), min),
        Actor::Account(_) => {
            let role: Option<String> = row.try_get("role")?;
            check_role(role.as_deref(), min)
        }
    }
}

/// A list of a card's (api.md §22), and the versions that tag it: each is
/// advanced by every write that changes the list, under the lock that write
/// already holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CardList {
    /// Comments (with their images): `cards.version`, advanced by
    /// `Lock::Card`, which every comment and attachment write takes but a
    /// plain new comment's (no lock: `Board::write_at_commit`), and the
    /// number of comments, which such a comment raises: between two writes
    /// under `Lock::Card`, comments are only added. The number is the one
    /// kept in `card_counts` (exact in every snapshot: the triggers keep it in
    /// the comment's own statement), so no thread is counted row by row.
    Comments,
    /// The comments' `cards.version` alone (`v2` is 0), for a read that sends
    /// the comments with their tag: their number is then the number the
    /// payload's statement returns, read after this version (see
    /// `Board::card_comments_if`), and [`CardList::Comments`] tags them.
    CommentsVersion,
    /// CARD-scope attachments: `cards.version`, as comments.
    Attachments,
    /// History: `cards.history_seq`, advanced by every entry written.
    History,
    /// The checklist (api.md §24): `cards.version`, advanced by
    /// `Lock::Card`, which every write of its items takes.
    Checklist,
    /// Relations: the workspace's version (`Lock::Workspace`, taken by every
    /// link created or deleted, and by every column write) and the number of
    /// the card's links, which only a deleted card (its links cascade) lowers
    /// without that lock.
    Relations,
}

/// [`CardList::Comments`]' versions: the card's version and its comments'
/// count as the card's payload reads it (`fields::COMMENT_COUNT`).
static COMMENTS_VERSIONS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "k.version AS v1, ({}) AS v2",
        fields::COMMENT_COUNT.replace("{k}", "k")
    )
});

/// The count in [`CardList::Comments`]' tag for the card `$1`, alone, as
/// `comment_count`: from the counts kept, as the tag's reads read it.
pub(crate) static COMMENT_COUNT_SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "SELECT ({}) AS comment_count",
        fields::COMMENT_COUNT.replace("{k}.id", "$1")
    )
});

impl CardList {
    /// The tag's kind and the SQL of its two versions (`v1`, `v2`) over `cards k`.
    pub(crate) fn sql(self) -> (&'static str, &'static str) {
        match self {
            CardList::Comments => ("comments", COMMENTS_VERSIONS.as_str()),
            CardList::CommentsVersion => ("comments", "k.version AS v1, 0 AS v2"),
            CardList::Attachments => ("attachments", "k.version AS v1, 0 AS v2"),
            CardList::History => ("history", "k.history_seq AS v1, 0 AS v2"),
            CardList::Checklist => ("checklist", "k.version AS v1, 0 AS v2"),
            CardList::Relations => (
                "relations",
                "(SELECT w.version FROM workspaces w WHERE w.id = k.workspace_id) AS v1, \
                 (SELECT COUNT(*) FROM relations r WHERE r.source_id = k.id) + \
                 (SELECT COUNT(*) FROM relations r WHERE r.target_id = k.id) AS v2",
            ),
        }
    }

    /// The tag of the list, from the version its lock row had (`v1`) and `v2`.
    pub(crate) fn tag(self, card: &CardId, v1: i64, v2: i64) -> ETag {
        ETag::of_versions(self.sql().0, card.as_ref(), &[v1, v2])
    }
}
