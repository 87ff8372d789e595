//! Activity (api.md §29): a card's changes, and a workspace's, as people read them, newest
//! first, read back from the outbox (`events`) rather than kept twice.
//!
//! **Which events.** Each event row names the card it concerns (`card_id`, and a link's other
//! card in `other_card_id`: migration 0026), written with the event by
//! [`Change`](crate::change::Change). A card's activity reads the rows naming it, by the
//! indexes `events_card` and `events_other_card`: its own changes, its comments',
//! attachments', links' and checklist items'. A workspace's feed reads the workspace's rows
//! by `events_workspace`; with a project, only those of the project's cards. Private events
//! (`notification.created`) and `cards.repositioned` (the side effect of a placement, whose
//! `card.moved` is the activity) are never items.
//!
//! **Summaries** are built here from the payload ([`summary`]). What a `card.updated` or a
//! `checklist.updated` changed is not in its payload (the subject after the change): it is
//! the difference with the same subject's previous event (in the page, or read once for the
//! whole page), so renames, new labels and checked items read as such; with no previous
//! event retained it reads "updated the card". Names (columns, labels, people, card titles)
//! are today's, read in one statement for the page; a deleted column reads "a removed column".
//!
//! **Paging**: by seq, newest first; `nextCursor` is the last item's seq (api.md §19's opaque
//! cursor). Three statements a page besides the access check: the page, the previous states,
//! the names.
//!
//! **Retention**: the events are kept `--activity-retention` (`Admin::prune_events`), longer
//! than a stream may resume from (`--events-retention`).

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use sqlx::Row as _;

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::error::{Result, ValidationErrors};
use crate::ids::{AccountId, CardId, ProjectId};
use crate::paging;
use crate::query::SetQuery;
use crate::store::placeholders;
use crate::time::Timestamp;

mod row;
mod summary;

use row::{Row, COLUMNS};

/// How many items a page has when the query does not say.
const DEFAULT_LIMIT: u16 = 50;

/// The event types whose subject is a card or a checklist item in full: a
/// later one's change is the difference with the one before.
const STATES: &str = "'card.created', 'card.updated', 'card.moved', 'card.archived', \
                      'card.restored', 'checklist.created', 'checklist.updated'";

/// Who made a change, as an activity item shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActivityActor {
    /// The account.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub id: AccountId,
    /// Its name today ("Removed account" when it no longer exists).
    pub name: String,
}

/// One change, as people read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActivityItem {
    /// The event's seq (api.md §11).
    pub seq: i64,
    /// The event's type (`card.moved`).
    #[serde(rename = "type")]
    pub kind: String,
    /// When it happened.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub at: Timestamp,
    /// Who made it; null when the CLI did.
    pub actor: Option<ActivityActor>,
    /// A short English sentence without its subject ("moved the card from To do to Done").
    pub summary: String,
}

/// A page of activity, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ActivityPage {
    /// The items of this page.
    pub items: Vec<ActivityItem>,
    /// The `cursor` of the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// Which page of activity: `limit` (1..=200, 50 by default) and `cursor`
/// (the previous page's `nextCursor`), as the query gave them; checked by the
/// read, after the access check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActivityQuery {
    limit: Option<String>,
    cursor: Option<String>,
}

impl ActivityQuery {
    /// The query parameters `limit` and `cursor` (each `None` when absent).
    pub fn from_query(limit: Option<&str>, cursor: Option<&str>) -> ActivityQuery {
        ActivityQuery {
            limit: limit.map(str::to_string),
            cursor: cursor.map(str::to_string),
        }
    }

    /// The page after the one whose `nextCursor` is `cursor` (`None`: the first).
    pub fn after(mut self, cursor: Option<String>) -> ActivityQuery {
        self.cursor = cursor;
        self
    }

    /// The limit and the seq below which the page starts.
    fn checked(&self) -> Result<(u16, i64)> {
        let limit = paging::limit(self.limit.as_deref(), DEFAULT_LIMIT)?;
        let before = match &self.cursor {
            None => i64::MAX,
            Some(c) => paging::decode(c, 1)?[0].parse().map_err(|_| {
                ValidationErrors::one(
                    "cursor",
                    "Expected the nextCursor of the previous page, unchanged",
                )
            })?,
        };
        Ok((limit, before))
    }
}

/// Activity (api.md §29): the operations of `events/activity.rs`.
impl Board {
    /// A card's activity (Viewer of its workspace), newest first: its own
    /// events and those of its comments, attachments, links and checklist
    /// items.
    pub async fn card_activity(
        &self,
        actor: &Actor,
        card: &CardId,
        query: &ActivityQuery,
    ) -> Result<ActivityPage> {
        self.reach_card(actor, card, Role::Viewer).await?;
        let (limit, before) = query.checked()?;
        let sql = format!(
            "SELECT {COLUMNS} FROM events \
             WHERE (card_id = $1 OR other_card_id = $1) AND seq < $2 AND account_id IS NULL \
               AND type <> 'cards.repositioned' \
             ORDER BY seq DESC LIMIT $3"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(card)
            .bind(before)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        self.activity_page(rows, limit, Some(card.as_ref())).await
    }

    /// A workspace's activity feed (Viewer), newest first; with a project,
    /// the activity of its cards alone (a project not of the workspace is a
    /// 422 on `project`).
    pub async fn workspace_activity(
        &self,
        actor: &Actor,
        set: &SetQuery,
        query: &ActivityQuery,
    ) -> Result<ActivityPage> {
        let ws = set.workspace_id();
        self.require(&self.pool, actor, ws, Role::Viewer).await?;
        if set.project_key().is_some() {
            self.set_in_effect(&self.pool, ws, set.project_key(), "project")
                .await?;
        }
        let (limit, before) = query.checked()?;
        let sql = format!(
            "SELECT {COLUMNS} FROM events \
             WHERE workspace_id = $1 AND seq < $2 AND account_id IS NULL \
               AND type <> 'cards.repositioned' \
               AND ($3 IS NULL OR card_id IN (SELECT id FROM cards WHERE project_id = $3)) \
             ORDER BY seq DESC LIMIT $4"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(ws)
            .bind(before)
            .bind(set.project_id().map(ProjectId::as_ref))
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        self.activity_page(rows, limit, None).await
    }

    /// The page of `rows` (at most `limit`), seen from `card` (`None`: the
    /// workspace's feed).
    async fn activity_page(
        &self,
        rows: Vec<sqlx::any::AnyRow>,
        limit: u16,
        card: Option<&str>,
    ) -> Result<ActivityPage> {
        let rows = rows.iter().map(Row::from_any).collect::<Result<Vec<_>>>()?;
        let next_cursor = match rows.last() {
            Some(last) if rows.len() == usize::from(limit) => {
                Some(paging::encode(&[&last.seq.to_string()]))
            }
            _ => None,
        };
        let earlier = self.earlier_states(&rows).await?;
        let names = self.names_for(&rows, &earlier).await?;
        let view = summary::View {
            card,
            names: &names,
        };
        let items = rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let before = summary::before(&rows[i + 1..], row).or_else(|| {
                    row.data["subject"]["id"]
                        .as_str()
                        .and_then(|id| earlier.get(id))
                });
                ActivityItem {
                    seq: row.seq,
                    kind: row.kind.clone(),
                    at: Timestamp::from_db(row.at.clone()),
                    actor: row.data["actorId"].as_str().map(|id| ActivityActor {
                        id: AccountId::from_db(id.to_string()),
                        name: names
                            .get(id)
                            .cloned()
                            .unwrap_or_else(|| "Removed account".into()),
                    }),
                    summary: view.summary(row, before),
                }
            })
            .collect();
        Ok(ActivityPage { items, next_cursor })
    }

    /// The state before the page of each card and checklist item the page
    /// changes: the subject of its newest earlier event, by subject id.
    async fn earlier_states(&self, rows: &[Row]) -> Result<HashMap<String, Row>> {
        let Some(oldest) = rows.last() else {
            return Ok(HashMap::new());
        };
        let cards: HashSet<&str> = rows
            .iter()
            .filter(|r| summary::is_state(&r.kind))
            .filter_map(|r| r.card.as_deref())
            .collect();
        if cards.is_empty() {
            return Ok(HashMap::new());
        }
        let cards: Vec<&str> = cards.into_iter().collect();
        let list = placeholders(2, cards.len());
        let subject_id = self.backend.json_text("data", &["subject", "id"]);
        let sql = format!(
            "SELECT {COLUMNS} FROM events WHERE seq IN ( \
                 SELECT MAX(seq) FROM events \
                 WHERE card_id IN ({list}) AND seq < $1 AND type IN ({STATES}) \
                 GROUP BY {subject_id})"
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(oldest.seq);
        for c in &cards {
            q = q.bind(*c);
        }
        let found = q.fetch_all(&self.pool).await?;
        let mut states = HashMap::new();
        for row in &found {
            let row = Row::from_any(row)?;
            if let Some(id) = row.subject("id") {
                states.insert(id.to_string(), row);
            }
        }
        Ok(states)
    }

    /// The names of what the page's summaries name, by id: people, columns,
    /// labels and card titles, as they are today (one statement).
    async fn names_for(
        &self,
        rows: &[Row],
        earlier: &HashMap<String, Row>,
    ) -> Result<HashMap<String, String>> {
        let mut ids: HashSet<&str> = HashSet::new();
        for row in rows.iter().chain(earlier.values()) {
            summary::named_ids(row, &mut ids);
        }
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let ids: Vec<&str> = ids.into_iter().collect();
        let list = placeholders(1, ids.len());
        let sql = format!(
            "SELECT id, name FROM accounts WHERE id IN ({list}) \
             UNION ALL SELECT id, name FROM columns WHERE id IN ({list}) \
             UNION ALL SELECT id, name FROM labels WHERE id IN ({list}) \
             UNION ALL SELECT id, title AS name FROM cards WHERE id IN ({list})"
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for id in &ids {
            q = q.bind(*id);
        }
        let rows = q.fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("name")?)))
            .collect()
    }
}
