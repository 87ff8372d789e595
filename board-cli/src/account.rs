//! `board account create|list|password|reset-link|identities|unlink` and `board member
//! add|list|set-role|remove`.

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
    /// Set an account's password and end its sessions (asks twice on a
    /// terminal; --stdin reads one line). Its personal tokens stay.
    Password {
        /// The account, by id or name.
        name: String,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        stdin: bool,
    },
    /// Print a one-time link (24 h) that sets an account's password.
    ResetLink {
        /// The account, by id or name.
        name: String,
        /// The URL people reach the board at (default: http:// and BOARD_LISTEN).
        #[arg(long, env = "BOARD_PUBLIC_URL")]
        public_url: Option<String>,
    },
    /// List the identities at the single sign-on provider linked to an
    /// account.
    Identities {
        /// The account, by id or name.
        name: String,
    },
    /// Unlink an identity from an account (refused when it is the
    /// account's last way to sign in: no password, no other identity).
    Unlink {
        /// The account, by id or name.
        name: String,
        /// The identity, by id or by its subject at the provider.
        identity: String,
    },
    /// Set an account's e-mail address: it is sent a verification link
    /// (needs --smtp-url), unless --verified says it is verified already.
    Email {
        /// The account, by id or name.
        name: String,
        /// The address.
        address: String,
        /// The address is the account's: verified now, no message sent.
        #[arg(long)]
        verified: bool,
        /// The URL people reach the board at, the link's start (default: http:// and BOARD_LISTEN).
        #[arg(long, env = "BOARD_PUBLIC_URL")]
        public_url: Option<String>,
    },
}

/// The URL links start with: `--public-url` / `BOARD_PUBLIC_URL`, else the
/// server's own address (`BOARD_LISTEN`, default 127.0.0.1:8080), with a
/// note on stderr that says where it came from: the CLI cannot know the
/// address a running server was given otherwise.
pub fn public_url(given: Option<String>) -> String {
    given.unwrap_or_else(|| {
        let (listen, from) = match std::env::var("BOARD_LISTEN") {
            Ok(listen) => (listen, "BOARD_LISTEN"),
            Err(_) => ("127.0.0.1:8080".to_string(), "the default listen address"),
        };
        let url = format!("http://{listen}");
        eprintln!(
            "note: the link starts with {url} ({from}); if people reach the board elsewhere, \
             set BOARD_PUBLIC_URL or --public-url to that URL"
        );
        url
    })
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
    /// Change a member's role (the last ADMIN of a workspace stays ADMIN).
    SetRole {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
        /// The account, by id or name.
        #[arg(long)]
        account: String,
        /// The new role.
        #[arg(long, value_enum)]
        role: RoleArg,
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
        Cmd::Email {
            name,
            address,
            verified,
            ..
        } => {
            let account = board.admin().find_account(&name).await?;
            board
                .admin()
                .set_email(&account.id, &address, verified)
                .await?;
            let what = if verified {
                "verified"
            } else {
                "sent a verification link"
            };
            out.value(
                &serde_json::json!({"account": account.name, "email": address.trim(), "emailVerified": verified}),
                || format!("account {:?} has the address {}: {what}", account.name, address.trim()),
            );
        }
        Cmd::ResetLink {
            name,
            public_url: url,
        } => {
            let account = board.admin().find_account(&name).await?;
            let link = board
                .admin()
                .reset_link(&account.id, &public_url(url))
                .await?;
            out.value(&json!({"accountId": account.id, "url": link}), || {
                link.clone()
            });
        }
        Cmd::Identities { name } => {
            let account = board.admin().find_account(&name).await?;
            let all = board.admin().identities(&account.id).await?;
            let rows = all
                .iter()
                .map(|i| {
                    vec![
                        i.id.clone(),
                        i.issuer.clone(),
                        i.subject.clone(),
                        crate::output::cell(i.email.as_ref()),
                        i.linked_at.to_string(),
                    ]
                })
                .collect();
            out.table(
                &all,
                &["id", "issuer", "subject", "email", "linked at"],
                rows,
            );
        }
        Cmd::Unlink { name, identity } => {
            let account = board.admin().find_account(&name).await?;
            board
                .admin()
                .unlink_identity(&account.id, &identity)
                .await?;
            out.value(
                &json!({"accountId": account.id, "identity": identity, "unlinked": true}),
                || format!("unlinked {identity:?} from account {:?}", account.name),
            );
        }
        Cmd::Password { name, stdin } => {
            let account = board.admin().find_account(&name).await?;
            let password = read_password(stdin)?;
            board.admin().set_password(&account.id, &password).await?;
            out.value(
                &json!({"accountId": account.id, "hasPassword": true}),
                || {
                    format!(
                        "account {:?} has a new password; its sessions ended",
                        account.name
                    )
                },
            );
        }
    }
    Ok(())
}

/// A new password: the first line of standard input with `--stdin`, else
/// typed twice at the terminal without echo.
fn read_password(from_stdin: bool) -> anyhow::Result<String> {
    use std::io::{BufRead, IsTerminal};
    if from_stdin {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        return Ok(line.trim_end_matches(['\n', '\r']).to_string());
    }
    if !std::io::stdin().is_terminal() {
        anyhow::bail!(
            "standard input is not a terminal: pass --stdin to read the password from it"
        );
    }
    let first = rpassword::prompt_password("New password: ")?;
    let again = rpassword::prompt_password("Again: ")?;
    if first != again {
        anyhow::bail!("the two passwords differ; nothing changed");
    }
    Ok(first)
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
        MemberCmd::SetRole {
            workspace,
            account,
            role,
        } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let acc = board.admin().find_account(&account).await?;
            let patch = board_core::MemberPatch {
                workspace_id: ws.id.clone(),
                role: role.into(),
            };
            let m = board
                .set_member_role(&board_core::Actor::Operator, &acc.id, patch)
                .await?;
            out.value(&m, || {
                format!(
                    "account {:?} is {} in workspace {:?}",
                    m.name,
                    m.role.as_str(),
                    ws.name
                )
            });
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
