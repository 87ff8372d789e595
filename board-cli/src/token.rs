//! `board token create --account A [--expires-in 30d]`, `board token list`
//! and `board token revoke TOKEN`.

use board_core::Board;
use clap::Subcommand;
use serde_json::json;

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Issue a bearer token (shown once; only its hash is stored).
    Create {
        /// The account, by id or name.
        #[arg(long)]
        account: String,
        /// Lifetime: a number with s, m, h, d or w (e.g. 30d). Default: no expiry.
        #[arg(long, value_parser = parse_duration)]
        expires_in: Option<i64>,
    },
    /// List issued tokens (never their secrets), newest first.
    List {
        /// Only the tokens of this account, by id or name.
        #[arg(long)]
        account: Option<String>,
    },
    /// Revoke a token (give the token, or its id).
    Revoke {
        /// The token.
        token: String,
    },
}

/// Parses `90s`, `15m`, `12h`, `30d`, `2w` into seconds.
fn parse_duration(s: &str) -> Result<i64, String> {
    let (digits, unit) = s.split_at(s.len().saturating_sub(1));
    let factor = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(format!("{s:?}: use a number followed by s, m, h, d or w")),
    };
    let n: i64 = digits
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{s:?}: use a positive number followed by s, m, h, d or w"))?;
    n.checked_mul(factor)
        .ok_or_else(|| format!("{s:?} is too long"))
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    match cmd {
        Cmd::Create {
            account,
            expires_in,
        } => {
            let acc = board.admin().find_account(&account).await?;
            let t = board.admin().create_token(&acc.id, expires_in).await?;
            if !out.json {
                eprintln!("The token is shown once: only its hash is stored. Keep it now.");
            }
            out.value(&t, || {
                format!(
                    "{}\nid {} · account {:?} · expires {}",
                    t.token,
                    t.id,
                    acc.name,
                    t.expires_at.as_ref().map_or("never", |at| at.as_str())
                )
            });
        }
        Cmd::List { account } => {
            let acc = match account {
                Some(a) => Some(board.admin().find_account(&a).await?),
                None => None,
            };
            let all = board
                .admin()
                .list_tokens(acc.as_ref().map(|a| &a.id))
                .await?;
            let rows = all
                .iter()
                .map(|t| {
                    vec![
                        t.id.to_string(),
                        t.account_name.clone(),
                        t.created_at.to_string(),
                        t.expires_at
                            .as_ref()
                            .map_or("never".into(), ToString::to_string),
                        t.revoked_at
                            .as_ref()
                            .map(ToString::to_string)
                            .unwrap_or_default(),
                    ]
                })
                .collect();
            out.table(
                &all,
                &["id", "account", "created", "expires", "revoked"],
                rows,
            );
        }
        Cmd::Revoke { token } => {
            board.admin().revoke_token(&token).await?;
            out.value(&json!({"revoked": true}), || "token revoked".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30d"), Ok(30 * 86_400));
        assert_eq!(parse_duration("90s"), Ok(90));
        assert!(parse_duration("30").is_err());
        assert!(parse_duration("-1d").is_err());
        assert!(parse_duration("d").is_err());
    }
}
