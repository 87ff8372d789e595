//! `board token create --account A [--expires-in 30d]`, `board token list`
//! and `board token revoke TOKEN`.

use std::time::Duration;

use board_core::{Board, TokenId};
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
        /// Lifetime: a number with s, m, h, d or w (e.g. 30d), at most 3650d.
        /// Default: no expiry.
        #[arg(long, value_parser = parse_duration)]
        expires_in: Option<Duration>,
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

/// Parses `90s`, `15m`, `12h`, `30d`, `2w` into a lifetime of at most
/// 3650 days (board-core's [`board_core::MAX_TOKEN_LIFETIME`]).
fn parse_duration(s: &str) -> Result<Duration, String> {
    const UNITS: &str = "a positive whole number followed by s, m, h, d or w (e.g. 30d)";
    let (digits, unit) = s.split_at(s.len().saturating_sub(1));
    let factor: u64 = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(format!("{s:?}: use {UNITS}")),
    };
    let n: u64 = match digits.parse::<u64>() {
        Ok(n) if n > 0 => n,
        // More digits than a u64 holds: too long, said as such below.
        Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => u64::MAX,
        _ => return Err(format!("{s:?}: use {UNITS}")),
    };
    let max_days = board_core::MAX_TOKEN_LIFETIME.as_secs() / 86_400;
    n.checked_mul(factor)
        .map(Duration::from_secs)
        .filter(|d| *d <= board_core::MAX_TOKEN_LIFETIME)
        .ok_or_else(|| {
            format!("{s:?} is too long: a token lives at most {max_days} days ({max_days}d)")
        })
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
                        crate::output::cell(t.revoked_at.as_ref()),
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
            let id = TokenId::from_token_or_id(&token)?;
            board.admin().revoke_token(&id).await?;
            out.value(&json!({"revoked": true}), || "token revoked".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(
            parse_duration("3650d"),
            Ok(Duration::from_secs(3650 * 86_400))
        );
        for long in [
            "3651d",
            "522w",
            "3000000d",
            "999999999999d",
            "99999999999999999999d",
        ] {
            let e = parse_duration(long).unwrap_err();
            assert!(e.contains("at most 3650 days"), "{long}: {e}");
        }
        assert!(parse_duration("30").is_err());
        assert!(parse_duration("-1d").is_err());
        assert!(parse_duration("d").is_err());
    }
}
