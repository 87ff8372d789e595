//! `board mail log [--failed]`: the recent notification e-mails and their
//! outcome. `board mail test --to ADDRESS`: a test message through the SMTP server of
//! `--smtp-url`, printing the server's reply or, in plain words, why it was
//! not sent (exit 1).

use board_core::Board;

use crate::output::{cell, Out};

#[derive(Debug, clap::Subcommand)]
pub enum Cmd {
    /// Send a test message and print the SMTP server's reply (or the error).
    Test {
        /// The address to send it to.
        #[arg(long)]
        to: String,
    },
    /// List the recent notification e-mails (batches) and their outcome.
    Log {
        /// Only those given up after 24 hours of failures (not those still retried).
        #[arg(long)]
        failed: bool,
        /// How many, newest first.
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    match cmd {
        Cmd::Test { to } => match board.admin().mail_test(&to).await? {
            Ok(accepted) => {
                out.value(
                    &serde_json::json!({"to": to, "sent": true, "reply": accepted.0}),
                    || format!("sent to {to}: the SMTP server answered {}", accepted.0),
                );
                Ok(())
            }
            Err(not_sent) => anyhow::bail!("not sent to {to}: {}", not_sent.reason),
        },
        Cmd::Log { failed, limit } => {
            let entries = board.admin().mail_log(failed, limit).await?;
            let rows = entries
                .iter()
                .map(|e| {
                    vec![
                        e.opened_at.clone(),
                        e.state.clone(),
                        e.account.clone(),
                        e.workspace.clone(),
                        cell(e.recipient.as_deref()),
                        cell(e.kinds.as_deref()),
                        e.attempts.to_string(),
                        cell(e.reply.as_deref()),
                    ]
                })
                .collect();
            out.table(
                &entries,
                &[
                    "opened",
                    "state",
                    "account",
                    "workspace",
                    "to",
                    "kinds",
                    "tries",
                    "reply",
                ],
                rows,
            );
            Ok(())
        }
    }
}
