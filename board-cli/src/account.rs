//! `board account create|list` and `board member add|list|remove`.

use board_core::{Board, Role};
use clap::{Subcommand, ValueEnum};
use serde_json::json;

use crate::lookup;
use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create an account (names are unique).
    Create {
        /// Its name.
        name: String,
    },
    /// List every account, by name.
    List,
}

#[derive(Debug, Subcommand)]
pub enum MemberCmd {
    /// Give an account a role in a workspace (replaces an earlier role).
    Add {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
        /// The account, by id or name.
        #[arg(long)]
        account: String,
        /// The role.
        #[arg(long, value_enum)]
        role: RoleArg,
    },
    /// List the members of a workspace, or of every workspace.
    List {
        /// The workspace, by id or name (default: every workspace).
        #[arg(long)]
        workspace: Option<String>,
    },
    /// Take an account out of a workspace (its tokens keep working elsewhere).
    Remove {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
        /// The account, by id or name.
        #[arg(long)]
        account: String,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RoleArg {
    Viewer,
    Member,
    Admin,
}

impl From<RoleArg> for Role {
    fn from(r: RoleArg) -> Role {
        match r {
            RoleArg::Viewer => Role::Viewer,
            RoleArg::Member => Role::Member,
            RoleArg::Admin => Role::Admin,
        }
    }
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    match cmd {
        Cmd::Create { name } => {
            let a = board.admin().create_account(&lookup::name(&name)?).await?;
            out.value(&a, || format!("created account {:?} ({})", a.name, a.id));
        }
        Cmd::List => {
            let all = board.admin().list_accounts().await?;
            let rows = all
                .iter()
                .map(|a| vec![a.name.clone(), a.id.to_string()])
                .collect();
            out.table(&all, &["name", "id"], rows);
        }
    }
    Ok(())
}

pub async fn run_member(board: &Board, out: &Out, cmd: MemberCmd) -> anyhow::Result<()> {
    match cmd {
        MemberCmd::Add {
            workspace,
            account,
            role,
        } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let acc = board.admin().find_account(&account).await?;
            let m = board
                .admin()
                .add_member(&ws.id, &acc.id, role.into())
                .await?;
            out.value(&m, || {
                format!(
                    "account {:?} is {} in workspace {:?}",
                    acc.name,
                    m.role.as_str(),
                    ws.name
                )
            });
        }
        MemberCmd::List { workspace } => {
            let ws = match workspace {
                Some(w) => Some(board.admin().find_workspace(&w).await?),
                None => None,
            };
            let all = board
                .admin()
                .list_members(ws.as_ref().map(|w| &w.id))
                .await?;
            let rows = all
                .iter()
                .map(|m| {
                    vec![
                        m.workspace_name.clone(),
                        m.account_name.clone(),
                        m.role.as_str().to_string(),
                        m.account_id.to_string(),
                    ]
                })
                .collect();
            out.table(&all, &["workspace", "account", "role", "account id"], rows);
        }
        MemberCmd::Remove { workspace, account } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let acc = board.admin().find_account(&account).await?;
            board.admin().remove_member(&ws.id, &acc.id).await?;
            out.value(
                &json!({"tenantId": ws.id, "accountId": acc.id, "removed": true}),
                || {
                    format!(
                        "account {:?} is no longer in workspace {:?}",
                        acc.name, ws.name
                    )
                },
            );
        }
    }
    Ok(())
}
