//! `board import --from trello FILE`: a Trello board export into a workspace
//! (api.md §28), through board-core's `import_trello`, as the operator on
//! behalf of the importing account (`--as`).

use std::collections::BTreeMap;

use anyhow::{bail, Context};
use board_core::{Actor, Board, ImportSummary, TrelloImport};

use crate::output::Out;
use crate::transfer::ImportArgs;

/// Runs the import and prints its summary.
pub async fn import(board: &Board, out: &Out, args: ImportArgs) -> anyhow::Result<()> {
    let admin = board.admin();
    let (Some(workspace), Some(account)) = (&args.workspace, &args.account) else {
        bail!("an import --from trello needs --workspace W and --as ACCOUNT");
    };
    let workspace = admin.find_workspace(workspace).await?;
    let importer = admin.find_account(account).await?;
    let project = match &args.project {
        Some(p) => Some(admin.find_project(&workspace.id, p).await?.id.to_string()),
        None => None,
    };
    let mut members = BTreeMap::new();
    for pair in &args.members {
        let Some((trello, name)) = pair.split_once('=') else {
            bail!("--member {pair:?}: expected TRELLO=ACCOUNT (a Trello id or username, then an account id or name)");
        };
        members.insert(trello.to_string(), admin.find_account(name).await?.id);
    }
    let file =
        std::fs::read(&args.dir).with_context(|| format!("cannot read {}", args.dir.display()))?;
    let import = TrelloImport {
        workspace_id: workspace.id,
        project_id: project,
        members,
        dry_run: args.dry_run,
        importer: Some(importer.id),
        file_over: None,
    };
    let summary = board.import_trello(&Actor::Operator, import, &file).await?;
    print(out, &summary, args.dry_run);
    Ok(())
}

/// The summary as a table of what was brought (or `--json`).
fn print(out: &Out, s: &ImportSummary, dry: bool) {
    let what = if dry {
        "would import (dry run)"
    } else {
        "imported"
    };
    let mut rows = vec![
        vec!["board".into(), s.board.name.clone()],
        vec!["columns matched".into(), s.columns.matched.to_string()],
        vec!["columns created".into(), s.columns.created.to_string()],
        vec!["cards created".into(), s.cards.created.to_string()],
        vec!["cards archived".into(), s.cards.archived.to_string()],
        vec!["cards skipped".into(), s.cards.skipped.to_string()],
        vec!["labels matched".into(), s.labels.matched.to_string()],
        vec!["labels created".into(), s.labels.created.to_string()],
        vec!["checklist items".into(), s.checklist_items.to_string()],
        vec!["comments".into(), s.comments.to_string()],
        vec!["history entries".into(), s.history_entries.to_string()],
        vec!["attachment links".into(), s.attachment_links.to_string()],
    ];
    for m in &s.unmapped_members {
        rows.push(vec![
            "unmapped member".into(),
            format!("{} (@{}, {})", m.full_name, m.username, m.id),
        ]);
    }
    for w in &s.warnings {
        rows.push(vec!["warning".into(), w.clone()]);
    }
    out.table(s, &[what, ""], rows);
}
