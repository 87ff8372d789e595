//! Server configuration: each flag also reads its environment variable; a flag
//! wins over the variable.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};

use crate::proxy::{Trust, TrustedProxies};

/// On or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    /// Enabled.
    On,
    /// Disabled.
    Off,
}

/// The HTTP server of the board service.
#[derive(Debug, Clone, Parser)]
#[command(name = "board-server", version, about)]
pub struct Config {
    /// Database URL: sqlite://PATH (embedded, created when missing) or postgres://…
    #[arg(long, env = "BOARD_DATABASE_URL", default_value = board_core::DEFAULT_DATABASE_URL)]
    pub database_url: String,
    /// Folder of stored attachment files.
    #[arg(long, env = "BOARD_FILES_DIR", default_value = board_core::DEFAULT_FILES_DIR)]
    pub files_dir: PathBuf,
    /// Keep attachment files in an S3-compatible object store instead:
    /// s3://BUCKET[/PREFIX]. The endpoint, region and credentials come from
    /// AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
    #[arg(long, env = "BOARD_FILES_URL", value_name = "s3://BUCKET[/PREFIX]")]
    pub files_url: Option<String>,
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "BOARD_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Largest accepted attachment, in bytes.
    #[arg(long, env = "BOARD_MAX_ATTACHMENT_BYTES", default_value_t = 10_485_760)]
    pub max_attachment_bytes: u64,
    /// Largest accepted import file (a Trello export), in bytes; a larger
    /// one is answered 413 FILE_TOO_LARGE.
    #[arg(long, env = "BOARD_MAX_IMPORT_BYTES", default_value_t = 100_000_000)]
    pub max_import_bytes: u64,
    /// The most files one upload request may hold; one more is answered 413
    /// TOO_MANY_FILES and nothing is stored.
    #[arg(long, env = "BOARD_MAX_FILES_PER_REQUEST", default_value_t = board_core::DEFAULT_MAX_FILES_PER_REQUEST, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub max_files_per_request: usize,
    /// The most client connections open at once; a connection past it is
    /// closed at once, so that the others keep being served.
    #[arg(long, env = "BOARD_MAX_CONNECTIONS", default_value_t = 10_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub max_connections: usize,
    /// How long a request head may take, from its first byte (or from the
    /// connection's opening, for the first request): api.md §21, 10 s.
    #[arg(long, env = "BOARD_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_timeout, hide = true)]
    pub header_timeout: Duration,
    /// The longest gap between two bytes of a request body: api.md §21, 30 s.
    #[arg(long, env = "BOARD_BODY_TIMEOUT", default_value = "30s", value_parser = parse_timeout, hide = true)]
    pub body_timeout: Duration,
    /// How long a keep-alive connection may sit idle between requests:
    /// api.md §21, 60 s.
    #[arg(long, env = "BOARD_IDLE_TIMEOUT", default_value = "60s", value_parser = parse_timeout, hide = true)]
    pub idle_timeout: Duration,
    /// Serve the API alone, without the board UI (`BOARD_UI=off` does the same).
    #[arg(long)]
    pub no_ui: bool,
    /// The board UI: on (default) or off.
    #[arg(long, env = "BOARD_UI", value_enum, default_value = "on", hide = true)]
    pub ui: Switch,
    /// Whether uploads are accepted at all.
    #[arg(long, env = "BOARD_ATTACHMENTS", value_enum, default_value = "on")]
    pub attachments: Switch,
    /// Origins (scheme://host or scheme://host:port, comma-separated) whose pages may call the
    /// API from a browser: CORS answers for them, and cookie-authenticated
    /// writes from them are accepted. Default: none (only the server's own origin).
    #[arg(
        long,
        env = "BOARD_ALLOWED_ORIGINS",
        default_value = "",
        hide_default_value = true,
        value_parser = AllowedOrigins::parse
    )]
    pub allowed_origins: AllowedOrigins,
    /// How long live events are kept for resuming streams (`24h`, `36h`, `7d`):
    /// at least 24 hours.
    #[arg(long, env = "BOARD_EVENTS_RETENTION", default_value = EVENTS_RETENTION_DEFAULT, value_parser = parse_events_retention)]
    pub events_retention: Duration,
    /// How long events are kept for reading cards' and workspaces' activity
    /// (`GET /api/cards/[id]/activity`, `GET /api/activity`): at least
    /// --events-retention.
    #[arg(long, env = "BOARD_ACTIVITY_RETENTION", default_value = ACTIVITY_RETENTION_DEFAULT, value_parser = parse_duration)]
    pub activity_retention: Duration,
    /// The most event streams (`GET /api/events`) open at once; one more is
    /// answered 503.
    #[arg(long, env = "BOARD_MAX_EVENT_STREAMS", default_value_t = 10_000)]
    pub max_event_streams: usize,
    /// How often an open event stream checks again that its credential is
    /// valid and still reaches its workspace (at most 60 s).
    #[arg(long, env = "BOARD_EVENTS_RECHECK", default_value = "30s", value_parser = parse_recheck, hide = true)]
    pub events_recheck: Duration,
    /// How long an unfinished upload may sit before the sweep counts it as
    /// left by a crash (tests set it to 0s to sweep at once).
    #[arg(long, env = "BOARD_SWEEP_GRACE", default_value = "1h", value_parser = parse_duration, hide = true)]
    pub sweep_grace: Duration,
    /// Let webhooks deliver to loopback, private, link-local, unique-local and
    /// unspecified addresses (tests, trusted networks). Off: such targets are
    /// refused with 422 WEBHOOK_TARGET, at creation and at every delivery.
    #[arg(long, env = "BOARD_WEBHOOK_ALLOW_PRIVATE", num_args = 0..=1, require_equals = true, default_value = "false",
          default_missing_value = "true", action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub webhook_allow_private: bool,
    /// How long a webhook may fail before it turns inactive (api.md §18: 24h).
    #[arg(long, env = "BOARD_WEBHOOK_GIVE_UP", default_value = "24h", value_parser = parse_timeout)]
    pub webhook_give_up: Duration,
    /// How long one delivery attempt may take (api.md §18: 10s; tests only).
    #[arg(long, env = "BOARD_WEBHOOK_TIMEOUT", default_value = "10s", value_parser = parse_timeout, hide = true)]
    pub webhook_timeout: Duration,
    /// How long a server's lease on a webhook lasts unrenewed: how soon another
    /// server takes over the webhooks of one that died (60s; tests shorten it).
    #[arg(long, env = "BOARD_WEBHOOK_LEASE", default_value = "60s", value_parser = parse_timeout, hide = true)]
    pub webhook_lease: Duration,
    /// How often the delivery worker looks for webhooks to deliver to (1s;
    /// the statement-budget test sets 1h, so that no background statement
    /// falls into a route's count).
    #[arg(long, env = "BOARD_WEBHOOK_SCAN", default_value = "1s", value_parser = parse_timeout, hide = true)]
    pub webhook_scan: Duration,
    /// How many hours before a card's due time its assignees (its watchers
    /// when it has none) are reminded (api.md §26: `due_soon`).
    #[arg(long, env = "BOARD_DUE_REMINDER_HOURS", default_value_t = board_core::DEFAULT_REMINDER_HOURS,
          value_parser = clap::value_parser!(u32).range(1..=8760))]
    pub due_reminder_hours: u32,
    /// How often the server looks for cards whose due time entered the
    /// reminder window (hidden: the statement-budget test sets 1h, so that
    /// no background statement falls into a route's count).
    #[arg(long, env = "BOARD_DUE_SCAN", default_value = "20s", value_parser = parse_timeout, hide = true)]
    pub due_scan: Duration,
    /// How long a session (a sign-in from a browser) lasts (api.md §23).
    #[arg(long, env = "BOARD_SESSION_LIFETIME", default_value = "30d", value_parser = parse_session_lifetime)]
    pub session_lifetime: Duration,
    /// Marks the session cookie `Secure` (serve over HTTPS, directly or
    /// behind a proxy).
    #[arg(long, env = "BOARD_SECURE_COOKIES", num_args = 0..=1, require_equals = true, default_value = "false",
          default_missing_value = "true", action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub secure_cookies: bool,
    /// Behind a reverse proxy that appends the address it sees to
    /// `X-Forwarded-For` (nginx's `$proxy_add_x_forwarded_for`): the client's
    /// address (sign-in throttling, logs) is the header's right-most entry,
    /// and `X-Forwarded-Proto` is believed. Else the connection's peer.
    #[arg(long, env = "BOARD_TRUST_PROXY", num_args = 0..=1, require_equals = true, default_value = "false",
          default_missing_value = "true", action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub trust_proxy: bool,
    /// The proxies in front of the server (comma-separated networks or
    /// addresses: `127.0.0.1,10.0.0.0/8`). Implies --trust-proxy, but
    /// `X-Forwarded-For` is believed only from a peer in the list, and its
    /// entries are read from the right past every listed proxy: the first
    /// that is not one is the client.
    #[arg(
        long,
        env = "BOARD_TRUSTED_PROXIES",
        value_name = "CIDR,…",
        default_value = "",
        hide_default_value = true,
        value_parser = TrustedProxies::parse
    )]
    pub trusted_proxies: TrustedProxies,
    /// The URL people reach the board at (`https://board.example.org`): the
    /// start of invitation and reset links. Default: the request's origin
    /// (the first run's reset link: this server's address).
    #[arg(long, env = "BOARD_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    /// The SMTP server of the board's e-mail (api.md §26):
    /// `smtp://[user:pass@]host[:port]` (STARTTLS when offered;
    /// `?tls=required` refuses plain text) or `smtps://…` (implicit TLS).
    /// Without it the board sends no mail.
    #[arg(long, env = "BOARD_SMTP_URL", value_name = "URL")]
    pub smtp_url: Option<String>,
    /// The address the board's e-mail comes from (needed with --smtp-url).
    #[arg(long, env = "BOARD_MAIL_FROM", value_name = "ADDRESS")]
    pub mail_from: Option<String>,
    /// How often the mail worker looks for batches due (hidden; tests).
    #[arg(long, env = "BOARD_MAIL_SCAN", default_value = "2s", value_parser = parse_timeout, hide = true)]
    pub mail_scan: Duration,
    /// Single sign-on (api.md §27): the OpenID provider's issuer URL
    /// (`https://id.example.org/realms/main`), found by discovery. Off when
    /// not given.
    #[arg(long, env = "BOARD_OIDC_ISSUER", value_name = "URL")]
    pub oidc_issuer: Option<String>,
    /// This installation's client id at the OpenID provider.
    #[arg(long, env = "BOARD_OIDC_CLIENT_ID", value_name = "ID")]
    pub oidc_client_id: Option<String>,
    /// Its client secret (better given as BOARD_OIDC_CLIENT_SECRET: a flag
    /// shows in the process list). Never logged.
    #[arg(long, env = "BOARD_OIDC_CLIENT_SECRET", value_name = "SECRET", hide_env_values = true,
          value_parser = |s: &str| Ok::<_, String>(Secret(s.to_string())))]
    pub oidc_client_secret: Option<Secret>,
    /// The provider's name on the sign-in button ("Sign in with NAME").
    #[arg(long, env = "BOARD_OIDC_NAME", value_name = "NAME", default_value = board_core::DEFAULT_SSO_NAME)]
    pub oidc_name: String,
    /// The scopes asked of the provider, separated by spaces.
    #[arg(long, env = "BOARD_OIDC_SCOPES", value_name = "SCOPES", default_value = board_core::DEFAULT_SSO_SCOPES)]
    pub oidc_scopes: String,
    /// A person the provider knows but no account is linked to gets a new
    /// account, without any workspace (off: the sign-in page asks them for
    /// an invitation).
    #[arg(long, env = "BOARD_OIDC_CREATE_ACCOUNTS", num_args = 0..=1, require_equals = true, default_value = "false",
          default_missing_value = "true", action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub oidc_create_accounts: bool,
    /// A person the provider knows, whose token says their address is
    /// verified, is linked to the one account whose verified address it is
    /// (off: an address never chooses an account).
    #[arg(long, env = "BOARD_OIDC_LINK_VERIFIED_EMAIL", num_args = 0..=1, require_equals = true, default_value = "false",
          default_missing_value = "true", action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub oidc_link_verified_email: bool,
    /// Refuse sign-in with a password (403 PASSWORD_SIGN_IN_DISABLED):
    /// people sign in through the provider; bearer tokens and reset links
    /// still work (`BOARD_PASSWORD_SIGN_IN=off` does the same).
    #[arg(long)]
    pub no_password_sign_in: bool,
    /// Password sign-in: on (default) or off.
    #[arg(
        long,
        env = "BOARD_PASSWORD_SIGN_IN",
        value_enum,
        default_value = "on",
        hide = true
    )]
    pub password_sign_in: Switch,
}

/// A secret from the command line or the environment: its `Debug` never
/// shows it.
#[derive(Clone)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// A session's lifetime: a duration of 1 minute to 3650 days.
impl Config {
    /// Whether the board UI is served (api.md §25): not with `--no-ui` or
    /// `BOARD_UI=off`.
    pub fn serves_ui(&self) -> bool {
        !self.no_ui && self.ui == Switch::On
    }

    /// Whether password sign-in is on (not with `--no-password-sign-in` or
    /// `BOARD_PASSWORD_SIGN_IN=off`).
    pub fn password_sign_in(&self) -> bool {
        !self.no_password_sign_in && self.password_sign_in == Switch::On
    }

    /// The single sign-on settings, when `--oidc-issuer` is given.
    pub fn sso(&self) -> Option<board_core::SsoSettings> {
        let issuer = self.oidc_issuer.clone().filter(|i| !i.trim().is_empty())?;
        Some(board_core::SsoSettings {
            issuer,
            client_id: self.oidc_client_id.clone().unwrap_or_default(),
            client_secret: self.oidc_client_secret.as_ref().map(|s| s.0.clone()),
            name: self.oidc_name.clone(),
            scopes: self
                .oidc_scopes
                .split_whitespace()
                .map(String::from)
                .collect(),
            create_accounts: self.oidc_create_accounts,
            link_verified_email: self.oidc_link_verified_email,
        })
    }

    /// What the server believes of proxies (`--trust-proxy`, `--trusted-proxies`).
    pub fn trust(&self) -> Trust<'_> {
        Trust {
            trust_proxy: self.trust_proxy,
            proxies: &self.trusted_proxies,
        }
    }
}

fn parse_session_lifetime(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d < Duration::from_secs(60) || d > board_core::MAX_TOKEN_LIFETIME {
        return Err(format!("{s:?}: a session lasts 1m to 3650d"));
    }
    Ok(d)
}

/// `--events-retention` when none is given.
pub const EVENTS_RETENTION_DEFAULT: &str = "24h";

/// `--activity-retention` when none is given.
pub const ACTIVITY_RETENTION_DEFAULT: &str = "90d";

/// A duration: a whole number with a unit, `s`, `m`, `h` or `d` (`90m`, `24h`).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: u64 = n
        .parse()
        .map_err(|_| format!("{s:?} is not a duration: give a number and a unit, e.g. 24h"))?;
    let secs = match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => {
            return Err(format!(
                "{s:?} is not a duration: the unit is s, m, h or d, e.g. 90m or 24h"
            ))
        }
    };
    Ok(Duration::from_secs(secs))
}

/// The events' retention: at least [`board_core::MIN_EVENTS_RETENTION`]
/// ([`board_core::check_events_retention`]).
fn parse_events_retention(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    board_core::check_events_retention(d).map_err(|e| format!("{s:?}: {e}"))?;
    Ok(d)
}

/// A connection timeout: a duration that is not zero (tests shorten them).
fn parse_timeout(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() {
        return Err(format!("{s:?}: a timeout is at least 1s"));
    }
    Ok(d)
}

fn parse_recheck(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() || d > Duration::from_secs(60) {
        return Err(format!("{s:?}: the recheck is between 1s and 60s"));
    }
    Ok(d)
}

/// Origins allowed to call the API from a browser (`--allowed-origins`),
/// normalised to lower-case `scheme://host` or `scheme://host:port`.
#[derive(Debug, Clone, Default)]
pub struct AllowedOrigins(pub(crate) Vec<String>);

impl AllowedOrigins {
    /// Parses a comma-separated list of origins (empty: none), each
    /// `http(s)://host` or `http(s)://host:port` with no path, query or user info.
    pub fn parse(list: &str) -> Result<Self, String> {
        list.split(',')
            .filter(|s| !s.trim().is_empty())
            .map(parse_origin)
            .collect::<Result<_, _>>()
            .map(AllowedOrigins)
    }

    /// Whether `origin` is one of them (any letter case).
    pub(crate) fn contains(&self, origin: &str) -> bool {
        self.0.iter().any(|o| o.eq_ignore_ascii_case(origin))
    }
}

/// Parses one origin; returns it in lower case.
pub(crate) fn parse_origin(s: &str) -> Result<String, String> {
    let origin = s.trim().trim_end_matches('/').to_ascii_lowercase();
    let authority = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"));
    match authority {
        Some(a) if !a.is_empty() && !a.contains(['/', '?', '#', '@', ' ']) => Ok(origin),
        _ => Err(format!(
            "{s:?} is not an origin: give scheme://host[:port], e.g. https://board.example.com"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_sign_in_goes_off_by_the_flag_or_the_setting() {
        let parse = |args: &[&str]| {
            Config::try_parse_from(std::iter::once("board-server").chain(args.iter().copied()))
                .unwrap()
                .password_sign_in()
        };
        assert!(parse(&[]));
        assert!(!parse(&["--no-password-sign-in"]));
        assert!(!parse(&["--password-sign-in", "off"]));
    }

    #[test]
    fn events_are_kept_at_least_a_day() {
        let parse = |value: &str| {
            Config::try_parse_from(["board-server", "--events-retention", value])
                .map(|c| c.events_retention)
        };
        assert_eq!(parse("24h").unwrap(), Duration::from_secs(86_400));
        assert_eq!(parse("7d").unwrap(), Duration::from_secs(7 * 86_400));
        let refused = parse("90m").unwrap_err().to_string();
        assert!(refused.contains("at least 24h"), "{refused}");
        assert!(parse("86399s").is_err());
    }
}
