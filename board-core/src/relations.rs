//! Links between cards: list, create (every rule of the contract) and delete.
//!
//! A create runs in one write transaction that holds the workspace row, so the
//! existence, pair and cycle checks and the insert see one state. The
//! `relations_pair` unique index on the unordered pair is the backstop: a unique
//! violation is [`Error::LinkExists`].
//!
//! The cycle check is one recursive CTE from the target along links of the same kind (`UNION`
//! stops on loops). On PostgreSQL it runs after `WriteTx::index_joins_only` (hash and merge
//! joins off for the transaction): with a small table the planner otherwise hash-joins a full
//! scan per step (`examples/bench_history.rs`). The order of a create's checks, and what
//! counts as a cycle, are in `docs/decisions.md`.

use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::{Any, Executor, Row};

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::cards::{Card, CardList};
use crate::change::Change;
use crate::error::{is_unique_violation, Error, Result, Rule};
use crate::etag::{Conditional, IfNoneMatch};
use crate::ids::{AccountId, CardId, RelationId, WorkspaceId};
use crate::settings;
use crate::store::{Lock, WriteTx};
use crate::time::{now, Timestamp};
use crate::validate::{self, Fields, FromJson, Input};

/// The kind of a link, read from source to target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum RelationKind {
    /// The source is the parent of the target.
    Parent,
    /// The source blocks the target.
    Blocks,
    /// The source generated the target.
    Generated,
    /// The two cards are related.
    Related,
}

impl RelationKind {
    /// Every kind, in wire form.
    pub const ALL: [&'static str; 4] = ["PARENT", "BLOCKS", "GENERATED", "RELATED"];

    /// The stored and wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::Parent => "PARENT",
            RelationKind::Blocks => "BLOCKS",
            RelationKind::Generated => "GENERATED",
            RelationKind::Related => "RELATED",
        }
    }

    /// Parses the wire form (exact letter case).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "PARENT" => Some(RelationKind::Parent),
            "BLOCKS" => Some(RelationKind::Blocks),
            "GENERATED" => Some(RelationKind::Generated),
            "RELATED" => Some(RelationKind::Related),
            _ => None,
        }
    }

    /// True for the kinds that may not form a cycle (PARENT, BLOCKS).
    pub fn is_acyclic(self) -> bool {
        matches!(self, RelationKind::Parent | RelationKind::Blocks)
    }
}

/// A link between two cards of one workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Relation {
    /// Its id.
    pub id: RelationId,
    /// The card the link was created on.
    pub source_id: CardId,
    /// The other card.
    pub target_id: CardId,
    /// The kind, read from source to target.
    pub kind: RelationKind,
    /// When it was created.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub created_at: Timestamp,
    /// The account that created it (api.md §17); null when the CLI created
    /// it, and for links created before this field existed.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub created_by: Option<AccountId>,
}

/// The body of `POST /api/cards/[id]/relations`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(rename_all = "camelCase")
)]
pub struct NewRelation {
    /// The other card (`targetId`).
    pub target_id: CardId,
    /// The kind (`kind`).
    pub kind: RelationKind,
}

impl NewRelation {
    /// A link of `kind` to the card `target`.
    pub fn new(target: CardId, kind: RelationKind) -> NewRelation {
        NewRelation {
            target_id: target,
            kind,
        }
    }
}

impl FromJson for NewRelation {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let target = f.required("targetId", validate::id(CardId::parse));
        let kind = f.required("kind", |v| validate::one_of(v, &RelationKind::ALL));
        f.finish()?;
        Ok(NewRelation {
            target_id: target.expect("checked"),
            kind: RelationKind::parse(kind.expect("checked")).expect("listed"),
        })
    }
}

const RELATION_SELECT: &str =
    "SELECT id, workspace_id, source_id, target_id, kind, created_at, created_by FROM relations";

fn relation_from_row(row: &AnyRow) -> Result<Relation> {
    let kind: String = row.try_get("kind")?;
    Ok(Relation {
        id: RelationId::from_db(row.try_get("id")?),
        source_id: CardId::from_db(row.try_get("source_id")?),
        target_id: CardId::from_db(row.try_get("target_id")?),
        kind: RelationKind::parse(&kind)
            .ok_or_else(|| Error::Config(format!("unknown relation kind {kind:?}")))?,
        created_at: row.try_get("created_at")?,
        created_by: row
            .try_get::<Option<String>, _>("created_by")?
            .map(AccountId::from_db),
    })
}

/// Links between cards: the operations of `relations.rs`.
impl Board {
    /// Every link where the card is source or target, oldest first (Viewer).
    pub async fn card_relations(&self, actor: &Actor, card: &CardId) -> Result<Vec<Relation>> {
        let found = self.find_card(&self.pool, card).await?;
        self.require(&self.pool, actor, &found.workspace_id, Role::Viewer)
            .await?;
        self.relations_of(card).await
    }

    /// A card's links with their tag (api.md §22), or only the tag when
    /// `cond` names it (Viewer): a 304 costs one statement.
    pub async fn card_relations_if(
        &self,
        actor: &Actor,
        card: &CardId,
        cond: &IfNoneMatch,
    ) -> Result<Conditional<Vec<Relation>>> {
        let (_, tag) = self
            .reach_card_list(actor, card, CardList::Relations)
            .await?;
        Conditional::answer(tag, cond, self.relations_of(card)).await
    }

    /// Every link of a card, oldest first.
    async fn relations_of(&self, card: &CardId) -> Result<Vec<Relation>> {
        let sql = format!(
            "{RELATION_SELECT} WHERE source_id = $1 OR target_id = $1 ORDER BY created_at, id"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(card)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(relation_from_row).collect()
    }

    /// Creates a link from `source` (Member). Refusals, in order: `SELF_LINK`,
    /// 404 for a target that does not exist, `CROSS_WORKSPACE_LINK`,
    /// `CROSS_PROJECT_LINK` (unless `allowCrossProjectLinks`), `LINK_EXISTS` (a
    /// link between the two cards in either direction), `LINK_CYCLE` (PARENT
    /// and BLOCKS only).
    pub async fn create_relation(
        &self,
        actor: &Actor,
        source: &CardId,
        input: impl Into<Input<NewRelation>>,
    ) -> Result<Relation> {
        let before = self.find_card(&self.pool, source).await?;
        self.require(&self.pool, actor, &before.workspace_id, Role::Member)
            .await?;
        let new = input.into().open()?;
        let mut tx = self.write(Lock::Workspace(&before.workspace_id)).await?;
        // Re-read under the lock: the card may have been deleted meanwhile.
        let source_card = self.find_card(&mut *tx, source).await?;
        self.check_link(&mut tx, &source_card, &new).await?;
        let relation = Relation {
            id: RelationId::new(),
            source_id: source.clone(),
            target_id: new.target_id.clone(),
            kind: new.kind,
            created_at: now(),
            created_by: actor.account().cloned(),
        };
        sqlx::query(
            "INSERT INTO relations (id, workspace_id, source_id, target_id, kind, created_at, \
                                    created_by) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&relation.id)
        .bind(&source_card.workspace_id)
        .bind(&relation.source_id)
        .bind(&relation.target_id)
        .bind(relation.kind)
        .bind(&relation.created_at)
        .bind(&relation.created_by)
        .execute(&mut *tx)
        .await
        .map_err(insert_error)?;
        let ws = &source_card.workspace_id;
        tx.emit(Change::new("relation.created", ws, actor, &relation, &[]));
        tx.commit().await?;
        Ok(relation)
    }

    /// The domain rules of a new link, checked inside the write transaction.
    async fn check_link(&self, tx: &mut WriteTx, source: &Card, new: &NewRelation) -> Result<()> {
        if source.id == new.target_id {
            return Err(Error::rule(Rule::SelfLink, "a card cannot link to itself"));
        }
        let target = self
            .find_card(&mut **tx, &new.target_id)
            .await
            .map_err(|e| match e {
                Error::NotFound(_) => Error::NotFound("target card"),
                other => other,
            })?;
        if target.workspace_id != source.workspace_id {
            return Err(Error::rule(
                Rule::CrossWorkspaceLink,
                "the cards are in different workspaces",
            ));
        }
        if target.project_id != source.project_id
            && !settings::load(&mut **tx, &source.workspace_id)
                .await?
                .allow_cross_project_links
        {
            return Err(Error::rule(
                Rule::CrossProjectLink,
                "the cards are in different projects and allowCrossProjectLinks is off",
            ));
        }
        if link_exists(&mut **tx, &source.id, &target.id).await? {
            return Err(Error::LinkExists);
        }
        if new.kind.is_acyclic() {
            tx.index_joins_only().await?;
            if reaches(&mut **tx, &target.id, &source.id, new.kind).await? {
                return Err(Error::rule(
                    Rule::LinkCycle,
                    format!("this {} link would close a cycle", new.kind.as_str()),
                ));
            }
        }
        Ok(())
    }

    /// Deletes a link (Member in its workspace); it disappears from both cards.
    pub async fn delete_relation(&self, actor: &Actor, id: &RelationId) -> Result<()> {
        let sql = format!("{RELATION_SELECT} WHERE id = $1");
        let row: Option<AnyRow> = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        let row = row.ok_or(Error::NotFound("relation"))?;
        let workspace: WorkspaceId = row.try_get("workspace_id")?;
        self.require(&self.pool, actor, &workspace, Role::Member)
            .await?;
        let mut tx = self.write(Lock::Workspace(&workspace)).await?;
        let gone = sqlx::query("DELETE FROM relations WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if gone.rows_affected() == 0 {
            return Err(Error::NotFound("relation"));
        }
        let link = relation_from_row(&row)?;
        let event = Change::deleted("relation.deleted", &workspace, actor, &id)
            .on_card(&link.source_id, Some(&link.target_id));
        tx.emit(event);
        tx.commit().await?;
        Ok(())
    }
}

/// The backstops of the insert: the `relations_pair` unique index (a racing
/// link between the same two cards) is 409; a card deleted by a concurrent
/// transaction (a foreign key) is 404.
fn insert_error(e: sqlx::Error) -> Error {
    let fk = matches!(&e, sqlx::Error::Database(db)
        if matches!(db.kind(), sqlx::error::ErrorKind::ForeignKeyViolation));
    let e = Error::from(e);
    if is_unique_violation(&e) {
        Error::LinkExists
    } else if fk {
        Error::NotFound("card")
    } else {
        e
    }
}

/// True when a link between `a` and `b` exists, in either direction.
async fn link_exists<'e, E>(exec: E, a: &CardId, b: &CardId) -> Result<bool>
where
    E: Executor<'e, Database = Any>,
{
    let found: Option<String> = sqlx::query_scalar(
        "SELECT id FROM relations \
         WHERE (source_id = $1 AND target_id = $2) OR (source_id = $2 AND target_id = $1)",
    )
    .bind(a)
    .bind(b)
    .fetch_optional(exec)
    .await?;
    Ok(found.is_some())
}

/// True when `from` reaches `to` by following links of `kind` from source to
/// target: one recursive query (`UNION` drops repeats, so it ends on cycles).
pub(crate) async fn reaches<'e, E>(
    exec: E,
    from: &CardId,
    to: &CardId,
    kind: RelationKind,
) -> Result<bool>
where
    E: Executor<'e, Database = Any>,
{
    let found: Option<String> = sqlx::query_scalar(
        "WITH RECURSIVE reach (id) AS ( \
             SELECT CAST($1 AS TEXT) \
             UNION \
             SELECT r.target_id FROM relations r JOIN reach ON r.source_id = reach.id \
             WHERE r.kind = $3 \
         ) \
         SELECT id FROM reach WHERE id = $2 LIMIT 1",
    )
    .bind(from)
    .bind(to)
    .bind(kind)
    .fetch_optional(exec)
    .await?;
    Ok(found.is_some())
}

crate::ids::bind_as_text!(RelationKind);
