//! The SMTP server of the e-mail tests: `.ci/smtp-server` (aiosmtpd) runs it
//! and writes each message it takes to a folder as JSON (`.ci/smtp-keep.py`);
//! `BOARD_TEST_SMTP_URL` names it and `BOARD_TEST_SMTP_DIR` the folder. A
//! test finds its own messages by recipient: each uses addresses of its own
//! ([`address`]). Without the server, the tests of
//! [`on_both_backends_with_mail!`](crate::on_both_backends_with_mail) are
//! ignored (shown as ignored, never as passed).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The test SMTP server (`smtp://127.0.0.1:PORT`), if one runs.
pub fn smtp_url() -> Option<String> {
    std::env::var("BOARD_TEST_SMTP_URL")
        .ok()
        .filter(|s| !s.is_empty())
}

/// The folder the test SMTP server writes its messages to.
pub fn smtp_dir() -> PathBuf {
    PathBuf::from(std::env::var("BOARD_TEST_SMTP_DIR").expect("BOARD_TEST_SMTP_DIR"))
}

/// The server's `--smtp-url` and `--mail-from` settings, as `BOARD_…` pairs.
pub fn settings() -> Vec<(&'static str, String)> {
    vec![
        ("BOARD_SMTP_URL", smtp_url().expect("BOARD_TEST_SMTP_URL")),
        ("BOARD_MAIL_FROM", "Board <board@example.test>".to_string()),
    ]
}

/// An address no other test uses.
pub fn address(who: &str) -> String {
    format!("{who}-{}@example.test", cuid2::create_id())
}

/// The messages the server took for `to`, oldest first: each
/// `{mailFrom, rcptTos, headers: {name: [values]}, text, html, raw}`.
pub fn messages_to(to: &str) -> Vec<Value> {
    let mut found: Vec<(String, Value)> = Vec::new();
    let Ok(dir) = std::fs::read_dir(smtp_dir()) else {
        return Vec::new();
    };
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let Ok(message) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let to_them = message["rcptTos"]
            .as_array()
            .is_some_and(|r| r.iter().any(|a| a.as_str() == Some(to)));
        if to_them {
            found.push((name, message));
        }
    }
    found.sort_by_key(|(name, _)| {
        let (ns, rest) = name.split_once('-').unwrap_or((name, ""));
        (ns.parse::<u128>().unwrap_or(0), rest.to_string())
    });
    found.into_iter().map(|(_, m)| m).collect()
}

/// Waits up to `within` until `n` messages reached `to`; returns them all
/// (panics, naming what came, when fewer did).
pub async fn wait_for(to: &str, n: usize, within: Duration) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let got = messages_to(to);
        if got.len() >= n {
            return got;
        }
        if start.elapsed() > within {
            panic!(
                "{n} message(s) to {to} expected within {within:?}, {} came: {got:#?}",
                got.len()
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A header's first value.
pub fn header<'a>(message: &'a Value, name: &str) -> Option<&'a str> {
    let headers = message["headers"].as_object()?;
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| v.get(0))
        .and_then(Value::as_str)
}

/// [`on_both_backends!`](crate::on_both_backends) for tests that need the
/// test SMTP server: both variants are ignored when `BOARD_TEST_SMTP_URL`
/// was not set at build time, the PostgreSQL one also without PostgreSQL.
#[macro_export]
macro_rules! on_both_backends_with_mail {
    ($(async fn $name:ident($backend:ident) $body:block)*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn body($backend: $crate::Backend) $body

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                #[cfg_attr(not(board_test_smtp), ignore = "BOARD_TEST_SMTP_URL is not set")]
                async fn sqlite() {
                    body($crate::Backend::Sqlite).await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                #[cfg_attr(
                    not(all(board_test_smtp, board_test_postgres)),
                    ignore = "BOARD_TEST_SMTP_URL or BOARD_TEST_POSTGRES_URL is not set"
                )]
                async fn postgres() {
                    body($crate::Backend::Postgres).await
                }
            }
        )*
    };
}

/// A relay in front of the test SMTP server that can be taken down: while
/// down it closes each connection at once (the SMTP server is out of reach),
/// while up it passes bytes both ways. Its URL is `smtp://127.0.0.1:PORT`.
pub struct Relay {
    /// `smtp://127.0.0.1:PORT`
    pub url: String,
    up: std::sync::Arc<std::sync::atomic::AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// A relay to the test SMTP server, up or down.
    pub async fn start(up: bool) -> Relay {
        let target = smtp_url()
            .expect("BOARD_TEST_SMTP_URL")
            .trim_start_matches("smtp://")
            .to_string();
        Relay::to(target, up).await
    }

    /// A relay to `target` (`host:port`), up or down; its URL's scheme is
    /// `smtp://` (the address after it is what counts).
    pub async fn to(target: String, up: bool) -> Relay {
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("smtp://{}", listener.local_addr().unwrap());
        let flag = std::sync::Arc::new(AtomicBool::new(up));
        let seen = flag.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut client, _)) = listener.accept().await else {
                    return;
                };
                if !seen.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let target = target.clone();
                tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect(&target).await {
                        tokio::io::copy_bidirectional(&mut client, &mut server)
                            .await
                            .ok();
                    }
                });
            }
        });
        Relay {
            url,
            up: flag,
            task,
        }
    }

    /// Takes the SMTP server out of reach, or brings it back.
    pub fn set_up(&self, up: bool) {
        self.up.store(up, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}
