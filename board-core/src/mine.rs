//! "My cards" (api.md §24): `GET /api/cards` with filters — the cards of a
//! workspace (or, with `assignee=me` and no `tenant`, of every workspace the
//! account reaches) assigned to someone, with a label, due in a window, on
//! the board or archived; ordered by due time (none last), then board order
//! (column position, card position, id), paged by a keyset on those four, so
//! a card changed while a client pages neither repeats nor hides another.
//!
//! Days are calendar days of `tz` (an IANA zone name; UTC without it):
//! `today` is the current day there, `week` today and the six days after it;
//! `overdue` is due before now, outside a done column.

use crate::access::{Actor, Role};
use crate::archive::ArchivedPage;
use crate::board::Board;
use crate::cards::{Card, CARD_COLUMNS};
use crate::error::{Result, ValidationErrors};
use crate::ids::{AccountId, LabelId, ProjectId, WorkspaceId};
use crate::paging;
use crate::time::{now, Timestamp, Zone};

/// The page size when `limit` is absent.
const DEFAULT_LIMIT: u16 = 50;

/// The due-time window of a "my cards" query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// Due before now, outside a done column.
    Overdue,
    /// Due during the current day.
    Today,
    /// Due during the current day or the six after it.
    Week,
    /// Without a due time.
    None,
}

/// Whose cards: an account, or the caller's own (`me`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assignee {
    /// The calling account.
    Me,
    /// This account.
    Account(AccountId),
}

/// The query of `GET /api/cards` with filters (api.md §24), each parameter
/// as text, checked by [`Board::cards_page`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CardQuery {
    /// `tenant`: the workspace (may be absent with `assignee=me`).
    pub tenant: Option<String>,
    /// `project`.
    pub project: Option<String>,
    /// `assignee`: an account id or `me`.
    pub assignee: Option<String>,
    /// `label`: a label id.
    pub label: Option<String>,
    /// `due`: `overdue`, `today`, `week` or `none`.
    pub due: Option<String>,
    /// `tz`: the IANA zone days are counted in (`Europe/Paris`; UTC without it).
    pub tz: Option<String>,
    /// `archived`: `true` for archived cards.
    pub archived: Option<String>,
    /// `limit`: 1..=200.
    pub limit: Option<String>,
    /// `cursor`: the previous page's `nextCursor`.
    pub cursor: Option<String>,
}

impl CardQuery {
    /// True when it names a filter of api.md §24 (`assignee`, `label`,
    /// `due`, `tz`) or no `archived=true`: then `GET /api/cards` is this
    /// list; else it is §19's archived list.
    pub fn is_filtered(&self) -> bool {
        self.assignee.is_some()
            || self.label.is_some()
            || self.due.is_some()
            || self.tz.is_some()
            || self.archived.as_deref() != Some("true")
    }
}

/// A [`CardQuery`] checked.
struct Checked {
    workspace: Option<WorkspaceId>,
    project: Option<ProjectId>,
    assignee: Option<Assignee>,
    label: Option<LabelId>,
    due: Option<Due>,
    zone: Zone,
    archived: bool,
    limit: u16,
    after: Option<Vec<String>>,
}

/// Parses the query; every malformed parameter is one field error.
fn check(q: &CardQuery) -> Result<Checked> {
    let mut errors = ValidationErrors::default();
    let workspace = match q.tenant.as_deref() {
        None => None,
        Some(t) => match WorkspaceId::parse(t) {
            Some(w) => Some(w),
            None => {
                errors.field("tenant", crate::validate::NOT_AN_ID);
                None
            }
        },
    };
    let project = match q.project.as_deref() {
        None | Some("") => None,
        Some(p) => match ProjectId::parse(p) {
            Some(p) => Some(p),
            None => {
                errors.field("project", "not a project of this workspace");
                None
            }
        },
    };
    let assignee = match q.assignee.as_deref() {
        None => None,
        Some("me") => Some(Assignee::Me),
        Some(a) => match AccountId::parse(a) {
            Some(a) => Some(Assignee::Account(a)),
            None => {
                errors.field("assignee", "Expected an account id or me");
                None
            }
        },
    };
    let label = match q.label.as_deref() {
        None => None,
        Some(l) => match LabelId::parse(l) {
            Some(l) => Some(l),
            None => {
                errors.field("label", crate::validate::NOT_AN_ID);
                None
            }
        },
    };
    let due = match q.due.as_deref() {
        None => None,
        Some("overdue") => Some(Due::Overdue),
        Some("today") => Some(Due::Today),
        Some("week") => Some(Due::Week),
        Some("none") => Some(Due::None),
        Some(other) => {
            errors.field(
                "due",
                format!("Expected 'overdue' | 'today' | 'week' | 'none', received '{other}'"),
            );
            None
        }
    };
    let zone = match q.tz.as_deref() {
        None => Zone::utc(),
        Some(tz) => Zone::named(tz).unwrap_or_else(|| {
            errors.field(
                "tz",
                format!(
                    "Expected an IANA time zone name such as UTC, Europe/Paris or \
                     America/New_York, received '{tz}'"
                ),
            );
            Zone::utc()
        }),
    };
    let archived = match q.archived.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => {
            errors.field("archived", "Expected true or false");
            false
        }
    };
    if workspace.is_none() && q.tenant.is_none() && assignee != Some(Assignee::Me) {
        errors.field(
            "tenant",
            "Required (it may be omitted only with assignee=me: every workspace you reach)",
        );
    }
    let limit = paging::limit(q.limit.as_deref(), DEFAULT_LIMIT);
    let after = q
        .cursor
        .as_deref()
        .map(|c| paging::decode(c, 4))
        .transpose();
    let (limit, after) = match (limit, after) {
        (Ok(l), Ok(a)) => (l, a),
        (Err(e), _) | (_, Err(e)) => {
            if let Some(v) = e.details() {
                for (k, msgs) in &v.field_errors {
                    for m in msgs {
                        errors.field(k, m.clone());
                    }
                }
            }
            (DEFAULT_LIMIT, None)
        }
    };
    if !errors.is_empty() {
        return Err(crate::error::Error::Validation(errors));
    }
    Ok(Checked {
        workspace,
        project,
        assignee,
        label,
        due,
        zone,
        archived,
        limit,
        after,
    })
}

/// "My cards" (api.md §24): the operations of `mine.rs`.
impl Board {
    /// "My cards" (Viewer of the workspace): the cards of [`CardQuery`]'s
    /// filters, by due time (none last), then board order, a page at a time.
    pub async fn cards_page(&self, actor: &Actor, query: &CardQuery) -> Result<ArchivedPage> {
        // 403 before 422: the workspace's reach is checked first.
        if let Some(ws) = query.tenant.as_deref().and_then(WorkspaceId::parse) {
            self.require(&self.pool, actor, &ws, Role::Viewer).await?;
        }
        let q = check(query)?;
        let me = actor.account().cloned();
        let assignee = match &q.assignee {
            Some(Assignee::Me) => Some(me.clone().ok_or_else(|| {
                ValidationErrors::one("assignee", "me names no account here (the operator)")
            })?),
            Some(Assignee::Account(a)) => Some(a.clone()),
            None => None,
        };
        if q.project.is_some() {
            // A project outside the workspace is a 422 on `project`.
            if let Some(ws) = &q.workspace {
                let key = q.project.as_ref().map(|p| p.as_str());
                self.set_in_effect(&self.pool, ws, key, "project").await?;
            }
        }
        let days = match q.due {
            Some(Due::Today) => Some(1),
            Some(Due::Week) => Some(7),
            _ => None,
        };
        let window = days.and_then(|n| q.zone.days_from(crate::time::tick(), n));
        let (from, to) = (window.map(|w| w.0), window.map(|w| w.1));
        let stamp = |ms: Option<i64>| ms.map(Timestamp::from_millis);
        let due_mode: i64 = match q.due {
            None => 0,
            Some(Due::Overdue) => 1,
            Some(Due::Today) | Some(Due::Week) => 2,
            Some(Due::None) => 3,
        };
        let after = q.after.as_ref();
        let key = |i: usize| after.map(|a| a[i].clone());
        let num = |i: usize| key(i).and_then(|s| s.parse::<i64>().ok());
        // Every parameter is always bound (PostgreSQL refuses unused ones); a
        // NULL one turns its condition off.
        let sql = format!(
            "SELECT {CARD_COLUMNS}, COALESCE(k.due_at, '~') AS due_key, c.position AS column_position \
             FROM cards k JOIN columns c ON c.id = k.column_id \
             WHERE (($1 IS NOT NULL AND k.workspace_id = $1) OR ($1 IS NULL AND k.workspace_id IN \
                    (SELECT m.workspace_id FROM memberships m WHERE m.account_id = $2))) \
               AND (($3 = 1 AND k.archived_at IS NOT NULL) OR ($3 = 0 AND k.archived_at IS NULL)) \
               AND ($4 IS NULL OR k.project_id = $4) \
               AND ($5 IS NULL OR EXISTS (SELECT 1 FROM card_assignees a \
                                          WHERE a.card_id = k.id AND a.account_id = $5)) \
               AND ($6 IS NULL OR EXISTS (SELECT 1 FROM card_labels l \
                                          WHERE l.card_id = k.id AND l.label_id = $6)) \
               AND ($7 <> 1 OR (k.due_at < $8 AND c.done = 0)) \
               AND ($7 <> 2 OR (k.due_at >= $9 AND k.due_at < $10)) \
               AND ($7 <> 3 OR k.due_at IS NULL) \
               AND ($11 IS NULL OR (COALESCE(k.due_at, '~'), c.position, k.position, k.id) > \
                                   ($11, $12, $13, $14)) \
             ORDER BY COALESCE(k.due_at, '~'), c.position, k.position, k.id LIMIT $15"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&q.workspace)
            .bind(&me)
            .bind(i64::from(q.archived))
            .bind(&q.project)
            .bind(&assignee)
            .bind(&q.label)
            .bind(due_mode)
            .bind(now())
            .bind(stamp(from))
            .bind(stamp(to))
            .bind(key(0))
            .bind(num(1))
            .bind(num(2))
            .bind(key(3))
            .bind(i64::from(q.limit) + 1)
            .fetch_all(&self.pool)
            .await?;
        let mut page = Vec::with_capacity(rows.len());
        for row in &rows {
            use sqlx::{FromRow, Row};
            let card = Card::from_row(row)?;
            let due_key: String = row.try_get("due_key")?;
            let column_position: i64 = row.try_get("column_position")?;
            page.push((card, due_key, column_position));
        }
        let next_cursor = if page.len() > usize::from(q.limit) {
            page.truncate(usize::from(q.limit));
            page.last().map(|(c, due, col)| {
                paging::encode(&[
                    due,
                    &col.to_string(),
                    &c.position.to_string(),
                    c.id.as_str(),
                ])
            })
        } else {
            None
        };
        Ok(ArchivedPage {
            cards: page.into_iter().map(|(c, _, _)| c).collect(),
            next_cursor,
        })
    }
}
