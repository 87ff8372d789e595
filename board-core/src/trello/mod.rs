//! Moving in from Trello (api.md §28, `docs/trello.md`): [`Board::import_trello`]
//! reads Trello's JSON export of a board (`file.rs`), decides every row from
//! it and from what the board holds (`plan.rs`), and writes them in one
//! transaction, table by table in multi-row `INSERT`s (`write.rs`), with one
//! `import.completed` event. Every object it brings remembers its Trello id
//! per column set (`trello_ids`, migration 0023), so that importing a newer
//! export of the same board adds only what is new.
//!
//! The transaction takes the workspace's lock (its labels and the processes'
//! column listings), then the set's (its columns and the cards in them), as
//! a column's creation does; what decides is read under them.

mod file;
mod plan;
mod summary;
mod write;

use std::collections::{BTreeMap, HashMap};

use sqlx::{AnyConnection, Row};

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::change::Change;
use crate::error::{Error, Result, Rule};
use crate::ids::{AccountId, ColumnId, ColumnSetId, LabelId, WorkspaceId};
use crate::settings;
use crate::time::now;
use crate::wip::WipLimits;

pub use summary::{Counted, ImportSummary, ImportedBoard, ImportedCards, UnmappedMember};

/// What to import from Trello, and where (the fields of
/// `POST /api/imports/trello` but the file).
#[derive(Debug, Clone)]
pub struct TrelloImport {
    /// The workspace (`tenantId`).
    pub workspace_id: WorkspaceId,
    /// The project whose column set in effect takes the cards (`projectId`).
    pub project_id: Option<String>,
    /// Trello member id or username → account (`members`).
    pub members: BTreeMap<String, AccountId>,
    /// Decide and answer the summary, writing nothing (`dryRun`).
    pub dry_run: bool,
    /// The importing account when the operator imports (the CLI's `--as`):
    /// the author of unmapped authors' comments. An account imports as itself.
    pub importer: Option<AccountId>,
    /// The file sent was over this many bytes, and not kept: 413
    /// `FILE_TOO_LARGE`, once the role is checked.
    pub file_over: Option<u64>,
}

impl Board {
    /// Imports a Trello board export (ADMIN of the workspace): its lists,
    /// cards, labels, checklists, comments, moves and attachment links, into
    /// the column set in effect for the workspace and project, in one
    /// transaction (api.md §28). The role is checked before the file is read:
    /// 403 for a lower role, then 413 `FILE_TOO_LARGE` for a file the server
    /// did not keep ([`TrelloImport::file_over`]), 422 `NOT_A_TRELLO_EXPORT` for a file that
    /// is not a board export, 422 `NOT_A_MEMBER` for a mapping to an account
    /// outside the workspace, 403 `COLUMN_MANAGEMENT_DISABLED` when a column
    /// is needed and columns are locked. A dry run answers the same summary
    /// and writes nothing.
    pub async fn import_trello(
        &self,
        actor: &Actor,
        import: TrelloImport,
        bytes: &[u8],
    ) -> Result<ImportSummary> {
        let ws = &import.workspace_id;
        self.require(&self.pool, actor, ws, Role::Admin).await?;
        if let Some(max) = import.file_over {
            return Err(Error::FileTooLarge(max));
        }
        let importer = match actor.account() {
            Some(a) => Some(a.clone()),
            None => match &import.importer {
                Some(a) => Some(self.account_named(a).await?),
                None => None,
            },
        };
        let export = file::parse(bytes).map_err(Error::NotATrelloExport)?;
        let project = import.project_id.as_deref();
        let set = self
            .set_in_effect(&self.pool, ws, project, "projectId")
            .await?;
        let now = now();
        let choices = plan::Choices {
            members: &import.members,
            importer: importer.as_ref(),
            now: now.as_str(),
        };
        if import.dry_run {
            let mut conn = self.pool.acquire().await?;
            let known = known(&mut conn, ws, &set).await?;
            check_mapping(&import.members, &known)?;
            return Ok(decide(&export, &known, &choices)?.summary);
        }
        let mut tx = self.write_columns(ws, &set).await?;
        let known = known(&mut tx, ws, &set).await?;
        check_mapping(&import.members, &known)?;
        let plan = decide(&export, &known, &choices)?;
        drop(export);
        write::write(
            &mut tx,
            self.backend,
            ws,
            project,
            &set,
            &plan,
            now.as_str(),
        )
        .await?;
        let subject = serde_json::json!({
            "tenantId": ws,
            "projectId": project,
            "summary": &plan.summary,
        });
        tx.emit(Change::new("import.completed", ws, actor, &subject, &[]));
        tx.commit().await?;
        Ok(plan.summary)
    }

    /// The account `id`; the operator's `--as` names one that must exist.
    async fn account_named(&self, id: &AccountId) -> Result<AccountId> {
        let found: Option<(String,)> = sqlx::query_as("SELECT id FROM accounts WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        found.map(|_| id.clone()).ok_or(Error::NotFound("account"))
    }
}

/// The plan; 403 `COLUMN_MANAGEMENT_DISABLED` when it needs a column, 422
/// `WIP_LIMIT` when it would take a column past its hard limit.
fn decide(
    export: &file::Export,
    known: &plan::Known,
    choices: &plan::Choices<'_>,
) -> Result<plan::Plan> {
    plan::plan(export, known, choices).map_err(|r| match r {
        plan::Refusal::ColumnNeeded => Error::ColumnManagementDisabled,
        plan::Refusal::WipLimit(name, limit, held, adding) => Error::rule(
            Rule::WipLimit,
            format!(
                "the column '{name}' has a WIP limit of {limit} cards and holds {held}: \
                 the import's {adding} open cards would exceed it; raise the limit or \
                 import with limits SOFT"
            ),
        ),
    })
}

/// 422 `NOT_A_MEMBER` when `members` maps to an account outside the workspace.
fn check_mapping(members: &BTreeMap<String, AccountId>, known: &plan::Known) -> Result<()> {
    for (trello, account) in members {
        if !known.members.iter().any(|(a, _)| a == account) {
            return Err(Error::rule(
                Rule::NotAMember,
                format!(
                    "members maps {trello:?} to {account}, which is not a member of this \
                     workspace: map it to a member, or leave it out"
                ),
            ));
        }
    }
    Ok(())
}

/// Reads what an import decides from, in `conn`'s transaction when it has one.
async fn known(
    conn: &mut AnyConnection,
    ws: &WorkspaceId,
    set: &ColumnSetId,
) -> Result<plan::Known> {
    let mut k = plan::Known::default();
    let columns = sqlx::query(
        "SELECT c.id, c.name, CAST(c.done AS BIGINT) AS done, c.wip_limit, \
                CAST(COALESCE((SELECT MAX(k.position) FROM cards k WHERE k.column_id = c.id), 0) \
                     AS BIGINT) AS last, \
                CAST((SELECT COUNT(*) FROM cards k \
                      WHERE k.column_id = c.id AND k.archived_at IS NULL) AS BIGINT) AS open \
         FROM columns c WHERE c.set_id = $1 ORDER BY c.position",
    )
    .bind(set)
    .fetch_all(&mut *conn)
    .await?;
    for r in &columns {
        k.columns.push(plan::KnownColumn {
            id: ColumnId::from_db(r.try_get("id")?),
            name: r.try_get("name")?,
            done: r.try_get::<i64, _>("done")? == 1,
            end: r.try_get("last")?,
            limit: r.try_get("wip_limit")?,
            open: r.try_get("open")?,
        });
    }
    let (next,): (i64,) = sqlx::query_as(
        "SELECT CAST(COALESCE(MAX(position) + 1, 0) AS BIGINT) FROM columns WHERE set_id = $1",
    )
    .bind(set)
    .fetch_one(&mut *conn)
    .await?;
    k.next_column = next;
    let labels = sqlx::query(
        "SELECT id, name_key, CAST(position AS BIGINT) AS position FROM labels \
         WHERE workspace_id = $1",
    )
    .bind(ws)
    .fetch_all(&mut *conn)
    .await?;
    for r in &labels {
        k.labels
            .insert(r.try_get("name_key")?, LabelId::from_db(r.try_get("id")?));
        k.last_label = k.last_label.max(r.try_get("position")?);
    }
    let members: Vec<(String, String)> = sqlx::query_as(
        "SELECT a.id, a.name FROM memberships m JOIN accounts a ON a.id = m.account_id \
         WHERE m.workspace_id = $1",
    )
    .bind(ws)
    .fetch_all(&mut *conn)
    .await?;
    k.members = members
        .into_iter()
        .map(|(id, name)| (AccountId::from_db(id), name))
        .collect();
    let remembered: Vec<(String, String, String)> =
        sqlx::query_as("SELECT kind, trello_id, local_id FROM trello_ids WHERE set_id = $1")
            .bind(set)
            .fetch_all(&mut *conn)
            .await?;
    k.remembered = remembered
        .into_iter()
        .map(|(kind, trello, local)| ((kind, trello), local))
        .collect::<HashMap<_, _>>();
    let cards = sqlx::query(
        "SELECT k.id, \
                CAST((SELECT COUNT(*) FROM checklist_items i WHERE i.card_id = k.id) AS BIGINT) \
                  AS items, \
                CAST(COALESCE((SELECT MAX(i.position) FROM checklist_items i \
                               WHERE i.card_id = k.id), 0) AS BIGINT) AS last \
         FROM trello_ids t JOIN cards k ON k.id = t.local_id \
         WHERE t.set_id = $1 AND t.kind = 'card'",
    )
    .bind(set)
    .fetch_all(&mut *conn)
    .await?;
    for r in &cards {
        let card = plan::KnownCard {
            items: r.try_get("items")?,
            last_item: r.try_get("last")?,
        };
        k.cards.insert(r.try_get("id")?, card);
    }
    let settings = settings::load(&mut *conn, ws).await?;
    k.column_management = settings.column_management;
    k.hard_limits = settings.wip_limits == WipLimits::Hard;
    Ok(k)
}
