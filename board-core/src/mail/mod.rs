//! E-mail (api.md §26): the SMTP connection ([`Mailer`]), set up from
//! `--smtp-url` and `--mail-from`, and what goes out through it. Without an
//! SMTP URL the board sends no mail ([`Mail::off`]).
//!
//! `smtp://[user:pass@]host[:port]` speaks STARTTLS when the server offers it
//! (port 25 by default), `?tls=required` refuses to go on in plain text, and
//! `smtps://` is TLS from the first byte (port 465). Certificates are checked
//! against the Mozilla roots (rustls, the TLS stack of the webhooks too).

pub(crate) mod address;
pub(crate) mod log;
pub(crate) mod prefs;
pub(crate) mod prune;
pub(crate) mod reset;
pub(crate) mod send;
pub(crate) mod unsubscribe;

use std::time::Duration;

use lettre::message::{header::ContentType, Mailbox, Message};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use crate::board::{Admin, Board};
use crate::error::{Error, Result};

/// How long one SMTP conversation may take before it counts as failed.
const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// The SMTP server mail goes through, and the sender's address.
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// The server as the log and the errors show it (no password).
    shown: String,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("server", &self.shown)
            .field("from", &self.from.to_string())
            .finish()
    }
}

/// What the SMTP server answered to a message it took: its code and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted(pub String);

/// Why a message did not go out, in plain words; `transient` when trying
/// again later may work (the server is down, busy, or refused for now).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotSent {
    /// What went wrong, for a person.
    pub reason: String,
    /// Whether a later try may succeed.
    pub transient: bool,
}

impl std::fmt::Display for NotSent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl Mailer {
    /// The mailer of `smtp_url` sending as `from` (`Board <board@example.org>`
    /// or a bare address). A URL or address that cannot work is
    /// [`Error::Config`], saying what would.
    pub fn new(smtp_url: &str, from: &str) -> Result<Mailer> {
        let bad = |why: String| {
            Error::Config(format!(
                "--smtp-url: {why}; expected smtp://[user:pass@]host[:port][?tls=required] \
                 or smtps://[user:pass@]host[:port]"
            ))
        };
        let url = reqwest::Url::parse(smtp_url).map_err(|e| bad(format!("not a URL ({e})")))?;
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| bad("it names no host".into()))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let mut required = false;
        for (key, value) in url.query_pairs() {
            match (key.as_ref(), value.as_ref()) {
                ("tls", "required") => required = true,
                ("tls", "opportunistic") => {}
                (key, value) => return Err(bad(format!("unknown parameter {key}={value}"))),
            }
        }
        let params = TlsParameters::new(host.clone())
            .map_err(|e| bad(format!("TLS cannot be set up for {host}: {e}")))?;
        let (tls, port) = match url.scheme() {
            "smtp" if required => (Tls::Required(params), 25),
            "smtp" => (Tls::Opportunistic(params), 25),
            "smtps" => (Tls::Wrapper(params), 465),
            other => return Err(bad(format!("unknown scheme {other}:"))),
        };
        let port = url.port().unwrap_or(port);
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&host)
            .port(port)
            .tls(tls)
            .timeout(Some(SMTP_TIMEOUT));
        if !url.username().is_empty() {
            let decode = |s: &str| {
                percent_decode(s).ok_or_else(|| bad("the user or password is not UTF-8".into()))
            };
            let user = decode(url.username())?;
            let pass = decode(url.password().unwrap_or(""))?;
            builder = builder.credentials(Credentials::new(user, pass));
        }
        let from: Mailbox = from.parse().map_err(|e| {
            Error::Config(format!(
                "--mail-from {from:?}: not an address ({e}); expected \
                 board@example.org or \"Board <board@example.org>\""
            ))
        })?;
        Ok(Mailer {
            transport: builder.build(),
            from,
            shown: format!("{}://{host}:{port}", url.scheme()),
        })
    }

    /// The sender's address.
    pub fn from(&self) -> &Mailbox {
        &self.from
    }

    /// Sends `message`; the server's answer, or why it did not take it.
    pub async fn send(&self, message: Message) -> std::result::Result<Accepted, NotSent> {
        match self.transport.send(message).await {
            Ok(reply) => Ok(Accepted(format!(
                "{} {}",
                reply.code(),
                reply.message().collect::<Vec<_>>().join(" ")
            ))),
            Err(e) => Err(self.not_sent(&e)),
        }
    }

    /// `e` in plain words, and whether trying again may help.
    fn not_sent(&self, e: &lettre::transport::smtp::Error) -> NotSent {
        let server = &self.shown;
        let mut source = String::new();
        let mut cause: Option<&dyn std::error::Error> = std::error::Error::source(e);
        while let Some(c) = cause {
            source = c.to_string();
            cause = c.source();
        }
        let detail = if source.is_empty() {
            e.to_string()
        } else {
            format!("{e}: {source}")
        };
        let (reason, transient) = if e.is_permanent() {
            (
                format!("the SMTP server {server} refused the message: {detail}"),
                false,
            )
        } else if e.is_transient() {
            (
                format!("the SMTP server {server} refused the message for now: {detail}"),
                true,
            )
        } else if e.is_timeout() {
            (
                format!("the SMTP server {server} did not answer in time ({detail})"),
                true,
            )
        } else if e.is_tls() {
            (
                format!("TLS with the SMTP server {server} failed: {detail}"),
                true,
            )
        } else {
            (
                format!("could not talk to the SMTP server {server}: {detail}"),
                true,
            )
        };
        NotSent { reason, transient }
    }
}

/// `%XX` sequences of a URL's user or password, decoded.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether this process sends mail, and through what: kept per process
/// (`Board::local`), made from [`Options`](crate::board::Options) when the
/// board opens.
#[derive(Debug, Clone, Default)]
pub struct Mail {
    mailer: Option<Mailer>,
}

impl Mail {
    /// No mail: the inbox works alone.
    pub fn off() -> Mail {
        Mail { mailer: None }
    }

    /// Mail through `mailer`.
    pub fn on(mailer: Mailer) -> Mail {
        Mail {
            mailer: Some(mailer),
        }
    }

    /// The mailer, when mail is on.
    pub fn mailer(&self) -> Option<&Mailer> {
        self.mailer.as_ref()
    }
}

/// E-mail (api.md §26): the operations of `mail/`.
impl Board {
    /// Whether this server sends e-mail (an SMTP URL is set).
    pub fn mail_on(&self) -> bool {
        self.local::<Mail>().mailer.is_some()
    }

    /// The mailer, or 422 `MAIL_DISABLED` saying how to turn mail on.
    pub(crate) fn mailer(&self) -> Result<&Mailer> {
        self.local::<Mail>().mailer.as_ref().ok_or_else(|| {
            Error::rule(
                crate::error::Rule::MailDisabled,
                "this server sends no e-mail: it has no SMTP server set up (--smtp-url)",
            )
        })
    }
}

/// E-mail (api.md §26), the operator's side: the operations of `mail/`.
impl Admin<'_> {
    /// Sends a test message to `to` (`board mail test`): the SMTP server's
    /// answer, or why it was not sent, in plain words
    /// ([`Error::Config`] for a bad address or no mail set up).
    pub async fn mail_test(&self, to: &str) -> Result<std::result::Result<Accepted, NotSent>> {
        let mailer = self.board.mailer().map_err(|_| {
            Error::Config(
                "no SMTP server is set up: give --smtp-url (BOARD_SMTP_URL) and \
                 --mail-from (BOARD_MAIL_FROM)"
                    .into(),
            )
        })?;
        let to: Mailbox = to
            .parse()
            .map_err(|e| Error::Config(format!("--to {to:?}: not an e-mail address ({e})")))?;
        let message = Message::builder()
            .from(mailer.from().clone())
            .to(to)
            .subject("board: test message")
            .header(ContentType::TEXT_PLAIN)
            .body(String::from(
                "This is a test message from board (board mail test).\n\
                 If you read it, the board's e-mail works.\n",
            ))
            .map_err(|e| Error::Internal(format!("building the test message: {e}")))?;
        Ok(mailer.send(message).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_urls_are_read_or_refused_in_plain_words() {
        let m = Mailer::new("smtp://mail.example.org", "board@example.org").unwrap();
        assert_eq!(m.shown, "smtp://mail.example.org:25");
        let m = Mailer::new("smtps://u:p%40ss@mail.example.org", "b@example.org").unwrap();
        assert_eq!(m.shown, "smtps://mail.example.org:465");
        let m = Mailer::new("smtp://127.0.0.1:2525?tls=required", "b@example.org").unwrap();
        assert_eq!(m.shown, "smtp://127.0.0.1:2525");
        for bad in ["http://x", "smtp://x?tls=never", "not a url", "smtp:///"] {
            match Mailer::new(bad, "b@example.org") {
                Err(Error::Config(m)) => assert!(m.contains("smtp://"), "{m}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        assert!(matches!(
            Mailer::new("smtp://x", "not an address"),
            Err(Error::Config(_))
        ));
        assert_eq!(percent_decode("p%40ss").as_deref(), Some("p@ss"));
    }
}
