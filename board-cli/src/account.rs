//! `board account create NAME` and `board member add`.

use board_core::{Board, Role};
use clap::{Subcommand, ValueEnum};

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create an account (names are unique).
    Create {
        /// Its name.
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum MemberCmd {
    /// Give an account a role in a workspace (replaces an earlier role).
    Add {
        /// The workspace, by id or unique name.
        #[arg(long)]
        workspace: String,
        /// The account, by id or name.
        #[arg(long)]
        account: String,
        /// The role.
        #[arg(long, value_enum)]
        role: RoleArg,
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
            let a = board.create_account(&name).await?;
            out.value(&a, || format!("created account {:?} ({})", a.name, a.id));
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
            let ws = board.find_workspace(&workspace).await?;
            let acc = board.find_account(&account).await?;
            let m = board.add_member(&ws.id, &acc.id, role.into()).await?;
            out.value(&m, || {
                format!(
                    "account {:?} is {} in workspace {:?}",
                    acc.name,
                    m.role.as_str(),
                    ws.name
                )
            });
        }
    }
    Ok(())
}
