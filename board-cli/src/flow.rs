//! `board flow --workspace W [--project P] [--since 30d] [--until ISO] [--svg FILE]`:
//! the flow metrics of a set (the object of `GET /api/flow`) as tables, JSON,
//! or a cumulative flow diagram.

use std::path::PathBuf;

use board_core::{Actor, Board, Column, Durations, Flow, FlowQuery, SetQuery};

use crate::flow_svg::{self, Band};
use crate::lookup;
use crate::output::Out;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workspace, by id or name.
    #[arg(long)]
    workspace: String,
    /// The project, by id or name: the set in effect for its cards.
    #[arg(long)]
    project: Option<String>,
    /// The window's start: `Nd` (the last N UTC days, today included), a date
    /// (YYYY-MM-DD, midnight UTC) or an RFC 3339 date-time. Default: 30d.
    #[arg(long)]
    since: Option<String>,
    /// The window's end (exclusive), a date or date-time. Default: now.
    #[arg(long)]
    until: Option<String>,
    /// Also write the cumulative flow diagram to this SVG file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

const ME: &Actor = &Actor::Operator;

pub async fn run(board: &Board, out: &Out, args: Args) -> anyhow::Result<()> {
    let (ws, project) = lookup::place(board, &args.workspace, args.project.as_deref()).await?;
    let set = SetQuery::workspace(ws).project(project);
    let mut query = FlowQuery::new(set.clone());
    if let Some(since) = &args.since {
        query = query.since_text(since)?;
    }
    if let Some(until) = args.until {
        query = query.until(until);
    }
    let flow = board.flow(ME, &query).await?;
    if let Some(path) = &args.svg {
        let columns = board.list_columns(ME, Some(&set)).await?;
        let svg = diagram(&flow, &columns);
        std::fs::write(path, svg)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        if !out.json {
            crate::output::line(format_args!(
                "cumulative flow diagram written to {}",
                path.display()
            ));
        }
    }
    if out.json {
        out.value(&flow, String::new);
        return Ok(());
    }
    print(out, &flow);
    Ok(())
}

fn print(out: &Out, flow: &Flow) {
    crate::output::line(format_args!(
        "Flow from {} to {} (exclusive)",
        flow.since, flow.until
    ));
    let rows = flow
        .columns
        .iter()
        .map(|c| {
            let mut row = vec![
                c.name.clone(),
                c.column_id
                    .as_ref()
                    .map_or_else(|| "(deleted)".into(), ToString::to_string),
                c.wip.to_string(),
                c.wip_limit.map_or_else(String::new, |l| l.to_string()),
            ];
            row.extend(stats(&c.time_in_column));
            row
        })
        .collect();
    let header = [
        "column",
        "id",
        "wip",
        "wip limit",
        "visits ended",
        "mean",
        "median",
        "p85",
    ];
    out.table(&(), &header, rows);
    let rows = [
        ("lead time", &flow.lead_time),
        ("cycle time", &flow.cycle_time),
    ]
    .iter()
    .map(|(name, d)| {
        let mut row = vec![name.to_string()];
        row.extend(stats(d));
        row
    })
    .collect();
    out.table(&(), &["", "cards", "mean", "median", "p85"], rows);
    let rows = flow
        .throughput
        .iter()
        .map(|d| vec![d.day.clone(), d.done.to_string()])
        .collect();
    out.table(&(), &["day", "done"], rows);
    let rows = flow
        .aging
        .iter()
        .map(|a| {
            vec![
                a.title.clone(),
                a.column_name.clone(),
                duration(a.age_seconds),
                duration(a.in_column_seconds),
                a.card_id.to_string(),
            ]
        })
        .collect();
    out.table(
        &(),
        &["oldest cards", "column", "age", "in column", "id"],
        rows,
    );
}

/// Count, mean, median, p85 as table cells.
fn stats(d: &Durations) -> Vec<String> {
    let cell = |x: Option<f64>| crate::output::cell(x.map(duration));
    vec![
        d.count.to_string(),
        cell(d.mean_seconds),
        cell(d.median_seconds),
        cell(d.p85_seconds),
    ]
}

/// Seconds as `3d 4h`, `5h 12m`, `7m 3s` or `12s`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    let (d, h, m) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, _) => format!("{m}m {}s", s % 60),
        (0, _, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}

/// The cumulative flow diagram: the done column at the bottom, then the other
/// columns of the set from the last to the first (the first on top of them),
/// then the names of columns no longer in the set (gray) on top.
fn diagram(flow: &Flow, columns: &[Column]) -> String {
    let mut bands: Vec<Band> = Vec::new();
    let ordered = columns
        .iter()
        .filter(|c| c.done)
        .chain(columns.iter().rev().filter(|c| !c.done));
    for c in ordered {
        if !bands.iter().any(|b| b.name == c.name) {
            bands.push(Band {
                name: c.name.clone(),
                color: flow_svg::accent_hex(c.accent.as_str()).to_string(),
            });
        }
    }
    for day in &flow.cumulative_flow {
        for name in day.counts.keys() {
            if !bands.iter().any(|b| b.name == *name) {
                bands.push(Band {
                    name: name.clone(),
                    color: flow_svg::accent_hex("gray").to_string(),
                });
            }
        }
    }
    let days: Vec<String> = flow.cumulative_flow.iter().map(|d| d.day.clone()).collect();
    let counts: Vec<Vec<u64>> = flow
        .cumulative_flow
        .iter()
        .map(|d| {
            bands
                .iter()
                .map(|b| d.counts.get(&b.name).copied().unwrap_or(0))
                .collect()
        })
        .collect();
    let day = |t: &str| t.get(..10).unwrap_or(t).to_string();
    let title = format!(
        "Cumulative flow, {} to {}",
        day(flow.since.as_str()),
        day(flow.until.as_str())
    );
    flow_svg::render(&title, &bands, &days, &counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(duration(12.4), "12s");
        assert_eq!(duration(3.0 * 86_400.0 + 4.0 * 3600.0 + 5.0), "3d 4h");
        assert_eq!(duration(3725.0), "1h 2m");
    }
}
