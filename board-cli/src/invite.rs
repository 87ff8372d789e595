//! `board invite create|list|revoke` and `board session list|revoke`
//! (api.md §23).

use board_core::{Actor, Board, InvitationId, NewInvitation, TokenKind};
use clap::Subcommand;
use serde_json::json;

use crate::account::{public_url, RoleArg};
use crate::output::{cell, Out};

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create an invitation to a workspace and print its link (7 days, once).
    Create {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
        /// The role it gives.
        #[arg(long, value_enum)]
        role: RoleArg,
        /// The URL people reach the board at (default: http:// and BOARD_LISTEN).
        #[arg(long, env = "BOARD_PUBLIC_URL")]
        public_url: Option<String>,
    },
    /// List a workspace's open invitations (never their codes).
    List {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
    },
    /// Revoke an open invitation.
    Revoke {
        /// The invitation's id.
        id: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum SessionCmd {
    /// List an account's open sessions (sign-ins from a browser).
    List {
        /// The account, by id or name.
        #[arg(long)]
        account: String,
    },
    /// End every session of an account (its personal tokens stay).
    Revoke {
        /// The account, by id or name.
        #[arg(long)]
        account: String,
    },
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let op = &Actor::Operator;
    match cmd {
        Cmd::Create {
            workspace,
            role,
            public_url: url,
        } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let new = NewInvitation {
                workspace_id: ws.id.clone(),
                role: role.into(),
                email: None,
            };
            let created = board.create_invitation(op, new, &public_url(url)).await?;
            if !out.json {
                eprintln!("The link is shown once and serves once, for 7 days.");
            }
            out.value(&created, || created.url.clone());
        }
        Cmd::List { workspace } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let open = board.invitations(op, &ws.id).await?;
            let rows = open
                .iter()
                .map(|i| {
                    vec![
                        i.id.to_string(),
                        i.role.as_str().to_string(),
                        i.created_at.to_string(),
                        i.expires_at.to_string(),
                    ]
                })
                .collect();
            out.table(&open, &["id", "role", "created", "expires"], rows);
        }
        Cmd::Revoke { id } => {
            let id = InvitationId::parse(&id)
                .ok_or_else(|| anyhow::anyhow!("{id:?} is not an invitation id"))?;
            board.revoke_invitation(op, &id).await?;
            out.value(&json!({"id": id, "revoked": true}), || {
                format!("invitation {id} revoked")
            });
        }
    }
    Ok(())
}

pub async fn run_session(board: &Board, out: &Out, cmd: SessionCmd) -> anyhow::Result<()> {
    match cmd {
        SessionCmd::List { account } => {
            let acc = board.admin().find_account(&account).await?;
            let now = board_core::Timestamp::from_millis(now_millis());
            let sessions: Vec<_> = board
                .admin()
                .list_tokens(Some(&acc.id))
                .await?
                .into_iter()
                .filter(|t| t.kind == TokenKind::Session && t.revoked_at.is_none())
                .filter(|t| t.expires_at.as_ref().is_none_or(|e| *e > now))
                .collect();
            let rows = sessions
                .iter()
                .map(|t| {
                    vec![
                        t.id.to_string(),
                        t.created_at.to_string(),
                        cell(t.expires_at.as_ref()),
                    ]
                })
                .collect();
            out.table(&sessions, &["id", "signed in", "expires"], rows);
        }
        SessionCmd::Revoke { account } => {
            let acc = board.admin().find_account(&account).await?;
            let n = board.admin().revoke_sessions(&acc.id).await?;
            out.value(&json!({"accountId": acc.id, "revoked": n}), || {
                format!(
                    "{} of account {:?} ended",
                    crate::output::count(n as u64, "session"),
                    acc.name
                )
            });
        }
    }
    Ok(())
}

/// The wall clock, in milliseconds since the Unix epoch.
fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
