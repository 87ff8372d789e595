//! Flow metrics (api.md §13), read from the history every card keeps: time
//! in each column, lead and cycle time, throughput, cumulative flow and aging,
//! for the set in effect as [`Board::board`] resolves it. The definitions, and
//! every choice the contract leaves open, are in `docs/flow.md`.

mod sql;
pub(crate) mod window;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use sqlx::Row;

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::error::{Error, Result};
use crate::ids::{CardId, ColumnId, ColumnSetId};
use crate::query::SetQuery;
use crate::time::{format_millis, tick, Timestamp};
use crate::wip::WipLimit;

pub use window::{DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS};

/// What a flow read is about: a set (as [`SetQuery`]) and a window
/// `[since, until)`, given as ISO 8601 texts (checked by [`Board::flow`] after
/// its access check) or as a number of UTC days up to `until`.
///
/// ```
/// use board_core::{FlowQuery, SetQuery};
/// # let ws = board_core::WorkspaceId::parse("ckv7q2x0a0000abcdefghijk").unwrap();
/// let query = FlowQuery::new(SetQuery::workspace(ws)).since("2026-11-01").until("2026-11-15");
/// # let _ = query.last_days(7);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowQuery {
    set: SetQuery,
    since: Option<String>,
    days: Option<i64>,
    until: Option<String>,
}

impl FlowQuery {
    /// The default window (the 30 UTC days up to now) of `set`.
    pub fn new(set: SetQuery) -> FlowQuery {
        FlowQuery {
            set,
            since: None,
            days: None,
            until: None,
        }
    }

    /// The query parameters `tenant`, `project`, `since` and `until` (each
    /// `None` when absent), read as [`SetQuery::from_query`] reads the first two.
    pub fn from_query(
        tenant: Option<&str>,
        project: Option<&str>,
        since: Option<&str>,
        until: Option<&str>,
    ) -> Result<FlowQuery> {
        let mut query = FlowQuery::new(SetQuery::from_query(tenant, project)?);
        query.since = since.map(str::to_string);
        query.until = until.map(str::to_string);
        Ok(query)
    }

    /// Starts the window at `since`: `YYYY-MM-DD` (midnight UTC) or an RFC 3339
    /// date-time.
    pub fn since(mut self, since: impl Into<String>) -> FlowQuery {
        self.since = Some(since.into());
        self
    }

    /// Starts the window as an operator writes it: `Nd` (the last N UTC
    /// days, as [`FlowQuery::last_days`]), a date (`YYYY-MM-DD`, midnight
    /// UTC) or an RFC 3339 date-time. Anything else is refused with every
    /// form named.
    pub fn since_text(self, text: &str) -> Result<FlowQuery> {
        if let Some(days) = text.strip_suffix('d').and_then(|n| n.parse().ok()) {
            return Ok(self.last_days(days));
        }
        match window::parse_time(text) {
            Some(_) => Ok(self.since(text)),
            None => Err(crate::error::ValidationErrors::one(
                "since",
                format!("Expected {SINCE_FORMS}; received {text:?}"),
            )),
        }
    }

    /// Starts the window at the beginning of the UTC day `days - 1` before the
    /// window's last day (the day of `until - 1 ms`): the last `days` UTC days
    /// (1 to [`MAX_WINDOW_DAYS`]).
    pub fn last_days(mut self, days: i64) -> FlowQuery {
        self.days = Some(days);
        self
    }

    /// Ends the window (exclusive) at `until`, in the same forms as `since`;
    /// now when not given.
    pub fn until(mut self, until: impl Into<String>) -> FlowQuery {
        self.until = Some(until.into());
        self
    }

    /// The set.
    pub fn set(&self) -> &SetQuery {
        &self.set
    }
}

/// Every form of [`FlowQuery::since_text`], as its refusal names them.
pub const SINCE_FORMS: &str = "Nd (the last N UTC days, today included: 14d), a date \
     (YYYY-MM-DD, midnight UTC: 2026-11-01) or an RFC 3339 date-time (2026-11-01T09:00:00Z)";

/// Count, mean, median and 85th percentile of some durations, in seconds
/// (`None` when there are none).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Durations {
    /// How many durations.
    pub count: u64,
    /// Their mean.
    pub mean_seconds: Option<f64>,
    /// Their median (nearest rank).
    pub median_seconds: Option<f64>,
    /// Their 85th percentile (nearest rank).
    pub p85_seconds: Option<f64>,
}

/// A column of the flow: a column of the set, or (with no id) one a card
/// visited that is no longer in the set, known by its name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FlowColumn {
    /// Its id; `None` for a column deleted (or of another set).
    pub column_id: Option<ColumnId>,
    /// Its name (now, or the last one history knows).
    pub name: String,
    /// The cards in it now.
    pub wip: u64,
    /// Its WIP limit (api.md §20); `None` without one, or for a column gone.
    pub wip_limit: Option<WipLimit>,
    /// The visits to it that ended in the window.
    pub time_in_column: Durations,
}

/// The cards that first arrived in a done column on one UTC day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DayDone {
    /// `YYYY-MM-DD`.
    pub day: String,
    /// How many.
    pub done: u64,
}

/// The cards in each column at the end of one UTC day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DayCounts {
    /// `YYYY-MM-DD`.
    pub day: String,
    /// Cards per column name.
    pub counts: BTreeMap<String, u64>,
}

/// A card not in the done column, with its age.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AgingCard {
    /// The card.
    pub card_id: CardId,
    /// Its title.
    pub title: String,
    /// The column it is in.
    pub column_name: String,
    /// Seconds since it was created.
    pub age_seconds: f64,
    /// Seconds since it entered its column.
    pub in_column_seconds: f64,
}

/// The flow of a set over a window (`GET /api/flow`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Flow {
    /// The window's start (inclusive).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub since: Timestamp,
    /// The window's end (exclusive).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub until: Timestamp,
    /// The set's columns in order, then columns no longer in it that visits
    /// ending in the window went through.
    pub columns: Vec<FlowColumn>,
    /// Creation to first arrival in a done column.
    pub lead_time: Durations,
    /// First departure from the first column to first arrival in a done column.
    pub cycle_time: Durations,
    /// First arrivals in a done column, each UTC day of the window.
    pub throughput: Vec<DayDone>,
    /// Cards per column at the end of each UTC day of the window.
    pub cumulative_flow: Vec<DayCounts>,
    /// Up to 20 cards not in the done column, oldest first.
    pub aging: Vec<AgingCard>,
}

/// One row of the flow statement (see `sql::flow_statement`).
struct Part {
    kind: String,
    col: Option<String>,
    label: Option<String>,
    day: Option<String>,
    n: i64,
    durations: Durations,
}

/// Seconds rounded to the millisecond.
fn ms(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Flow metrics (api.md §13): the operations of `flow/mod.rs`.
impl Board {
    /// The flow of the set in effect for `query`'s project (or the tenant set)
    /// over its window (Viewer). A project outside the workspace is a 422 on
    /// `project`; a window that is not ISO 8601, empty or longer than
    /// [`MAX_WINDOW_DAYS`] a 422 on `since`/`until`.
    pub async fn flow(&self, actor: &Actor, query: &FlowQuery) -> Result<Flow> {
        let ws = query.set.workspace_id();
        self.require(&self.pool, actor, ws, Role::Viewer).await?;
        let set = self
            .set_in_effect(&self.pool, ws, query.set.project_key(), "project")
            .await?;
        // The clock writes take their times from: every change committed
        // before this read has a time before this one.
        let now_ms = tick();
        let now_text = format_millis(now_ms);
        let window = window::Window::parse(
            query.since.as_deref(),
            query.days,
            query.until.as_deref(),
            now_ms,
        )?;
        let (since, until) = (
            Timestamp::from_millis(window.since),
            Timestamp::from_millis(window.until),
        );
        let days = window.days();
        let columns = self.set_columns(&self.pool, &set).await?;
        let wip: HashMap<String, i64> = sqlx::query_as(sql::WIP)
            .bind(&set)
            .fetch_all(&self.pool)
            .await?
            .into_iter()
            .collect();
        let parts = self
            .flow_parts(&set, &since, &until, window.first_day_start(), &days)
            .await?;
        let aging = sqlx::query(sqlx::AssertSqlSafe(sql::aging_statement(self.backend)))
            .bind(&set)
            .bind(now_text)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| {
                Ok(AgingCard {
                    card_id: CardId::from_db(r.try_get(0)?),
                    title: r.try_get(1)?,
                    column_name: r.try_get(2)?,
                    age_seconds: ms(r.try_get(3)?),
                    in_column_seconds: ms(r.try_get(4)?),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let stats = |kind: &str, col: Option<&str>| {
            parts
                .iter()
                .find(|p| p.kind == kind && p.col.as_deref() == col)
                .map(|p| p.durations.clone())
                .unwrap_or_default()
        };
        let mut flow_columns: Vec<FlowColumn> = columns
            .iter()
            .map(|c| FlowColumn {
                column_id: Some(c.id.clone()),
                name: c.name.clone(),
                wip: wip.get(c.id.as_str()).copied().unwrap_or(0) as u64,
                wip_limit: c.wip_limit,
                time_in_column: stats("T", Some(c.id.as_str())),
            })
            .collect();
        let mut gone: Vec<&Part> = parts
            .iter()
            .filter(|p| p.kind == "T" && p.col.is_none())
            .collect();
        gone.sort_by(|a, b| a.label.cmp(&b.label));
        flow_columns.extend(gone.into_iter().map(|p| FlowColumn {
            column_id: None,
            name: p.label.clone().unwrap_or_default(),
            wip: 0,
            wip_limit: None,
            time_in_column: p.durations.clone(),
        }));
        let done: HashMap<&str, i64> = parts
            .iter()
            .filter(|p| p.kind == "D")
            .filter_map(|p| Some((p.day.as_deref()?, p.n)))
            .collect();
        let throughput = days
            .iter()
            .map(|day| DayDone {
                day: day.clone(),
                done: done.get(day.as_str()).copied().unwrap_or(0) as u64,
            })
            .collect();
        Ok(Flow {
            since,
            until,
            columns: flow_columns,
            lead_time: stats("L", None),
            cycle_time: stats("Y", None),
            throughput,
            cumulative_flow: cumulative(&columns, &parts, &days),
            aging,
        })
    }

    /// Runs the flow statement.
    async fn flow_parts(
        &self,
        set: &ColumnSetId,
        since: &Timestamp,
        until: &Timestamp,
        first_day_start: i64,
        days: &[String],
    ) -> Result<Vec<Part>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql::flow_statement(self.backend)))
            .bind(set)
            .bind(since)
            .bind(until)
            .bind(format_millis(first_day_start))
            .bind(days[0].clone())
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                let n: i64 = r.try_get("n")?;
                let sorted: Vec<i64> = match r.try_get::<Option<String>, _>("ds")? {
                    Some(list) => list
                        .split(',')
                        .map(|d| d.trim().parse::<i64>())
                        .collect::<std::result::Result<_, _>>()
                        .map_err(|e| Error::Internal(format!("flow durations: {e}")))?,
                    None => Vec::new(),
                };
                let seconds = |millis: i64| millis as f64 / 1000.0;
                let ranks = sql::percentiles(&sorted);
                Ok(Part {
                    kind: r.try_get("kind")?,
                    col: r.try_get("col")?,
                    label: r.try_get("label")?,
                    day: r.try_get("day")?,
                    n,
                    durations: Durations {
                        count: n.max(0) as u64,
                        mean_seconds: r.try_get::<Option<f64>, _>("mean")?.map(|m| ms(m / 1000.0)),
                        median_seconds: ranks.map(|(m, _)| seconds(m)),
                        p85_seconds: ranks.map(|(_, p)| seconds(p)),
                    },
                })
            })
            .collect()
    }
}

/// The cumulative flow: every column name of the set and every name the
/// statement reports, on every day, carrying each count forward from the last
/// day on which it changed.
fn cumulative(
    columns: &[crate::columns::Column],
    parts: &[Part],
    days: &[String],
) -> Vec<DayCounts> {
    let mut changes: BTreeMap<&str, BTreeMap<&str, i64>> = BTreeMap::new();
    for c in columns {
        changes.entry(c.name.as_str()).or_default();
    }
    for p in parts.iter().filter(|p| p.kind == "C") {
        if let (Some(label), Some(day)) = (&p.label, &p.day) {
            changes.entry(label).or_default().insert(day, p.n);
        }
    }
    let mut current: BTreeMap<&str, i64> = changes.keys().map(|k| (*k, 0)).collect();
    days.iter()
        .map(|day| {
            for (label, per_day) in &changes {
                if let Some(n) = per_day.get(day.as_str()) {
                    current.insert(label, *n);
                }
            }
            DayCounts {
                day: day.clone(),
                counts: current
                    .iter()
                    .map(|(k, v)| (k.to_string(), (*v).max(0) as u64))
                    .collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::WorkspaceId;

    #[test]
    fn since_text_reads_days_dates_and_date_times_and_names_every_form() {
        let ws = WorkspaceId::parse("ckv7q2x0a0000abcdefghijk").unwrap();
        let q = || FlowQuery::new(SetQuery::workspace(ws.clone()));
        assert_eq!(q().since_text("14d").unwrap(), q().last_days(14));
        assert_eq!(
            q().since_text("2026-11-01").unwrap(),
            q().since("2026-11-01")
        );
        let t = "2026-11-01T09:00:00Z";
        assert_eq!(q().since_text(t).unwrap(), q().since(t));
        let e = format!("{:?}", q().since_text("yesterday").unwrap_err());
        for form in ["yesterday", "Nd", "YYYY-MM-DD", "RFC 3339"] {
            assert!(e.contains(form), "{form}: {e}");
        }
    }
}
