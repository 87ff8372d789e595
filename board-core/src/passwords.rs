//! Passwords (api.md §23): the strength rule, Argon2id hashes with at least
//! OWASP's parameters, and the pool of threads that computes them.
//!
//! A hash is a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`). Hashing and
//! verifying take tens of milliseconds of one core each, so they run on
//! blocking threads, at most as many at once as there are cores
//! ([`Hashers`]); a sign-in past that waits, and after [`HASH_WAIT`] is
//! refused with [`Error::Busy`], so a flood of sign-ins queues instead of
//! taking the CPU from every other route.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::Semaphore;

use crate::error::{Error, Result, Rule, ValidationErrors};

/// The fewest characters of a password.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// The most characters of a password.
pub const MAX_PASSWORD_CHARS: usize = 1_000;
/// The longest a sign-in waits for a free hasher before [`Error::Busy`].
pub const HASH_WAIT: Duration = Duration::from_secs(5);

/// OWASP's minimum for Argon2id: 19 MiB, 2 passes, 1 lane.
const M_COST_KIB: u32 = 19 * 1024;
const T_COST: u32 = 2;
const P_COST: u32 = 1;

/// A password that passed the strength rule, not yet hashed. Its `Debug`
/// shows nothing of it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(…)")
    }
}

impl Password {
    /// Checks `text` as the password of the account named `name`: 8 to
    /// 1,000 characters and no control character (else 422
    /// `VALIDATION_FAILED` on `field`), not containing the name ignoring
    /// case, and scored at least 3 of 4 by zxcvbn (else 422 `WEAK_PASSWORD`,
    /// saying why and what would be accepted).
    pub fn new(text: &str, name: &str, field: &str) -> Result<Password> {
        let chars = text.chars().count();
        if chars > MAX_PASSWORD_CHARS {
            return Err(ValidationErrors::one(
                field,
                format!(
                    "A password has at most {MAX_PASSWORD_CHARS} characters; this one has {chars}"
                ),
            ));
        }
        if text.chars().any(char::is_control) {
            return Err(ValidationErrors::one(
                field,
                "A password may hold any character but control characters (tabs, line breaks…)",
            ));
        }
        let accepted = "use at least 8 characters: several unrelated words, or a \
                        password manager's random text";
        if chars < MIN_PASSWORD_CHARS {
            return Err(weak(format!("it has {chars} characters; {accepted}")));
        }
        let name = name.trim();
        if !name.is_empty() && text.to_lowercase().contains(&name.to_lowercase()) {
            return Err(weak(format!("it contains the account's name; {accepted}")));
        }
        let estimate = zxcvbn::zxcvbn(text, &[name]);
        if (estimate.score() as u8) < 3 {
            let why = estimate
                .feedback()
                .and_then(|f| f.warning())
                .map(|w| w.to_string())
                .unwrap_or_else(|| "it is easy to guess".to_string());
            return Err(weak(format!(
                "{} (strength {} of 4, at least 3 is needed); {accepted}",
                why.trim_end_matches('.'),
                estimate.score() as u8
            )));
        }
        Ok(Password(text.to_string()))
    }

    /// The text, for hashing or verifying.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

fn weak(why: String) -> Error {
    Error::rule(
        Rule::WeakPassword,
        format!("This password is too weak: {why}"),
    )
}

fn argon2() -> Argon2<'static> {
    let params = Params::new(M_COST_KIB, T_COST, P_COST, None).expect("OWASP's parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// The PHC string of `password` under this build's parameters, with a
/// random salt. Blocking: call it through [`Hashers::run`].
pub(crate) fn hash(password: &str) -> Result<String> {
    argon2()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| Error::Internal(format!("password hash: {e}")))
}

/// True when `password` matches the PHC string `stored`; a string that is
/// not an Argon2 hash matches nothing. Blocking.
pub(crate) fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|h| {
        Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

/// True when `stored` was made with weaker parameters than this build's
/// (or is not Argon2id): the next successful sign-in replaces it.
pub(crate) fn is_outdated(stored: &str) -> bool {
    let Ok(h) = PasswordHash::new(stored) else {
        return true;
    };
    let Ok(params) = Params::try_from(&h) else {
        return true;
    };
    h.algorithm.as_str() != "argon2id"
        || params.m_cost() < M_COST_KIB
        || params.t_cost() < T_COST
        || params.p_cost() < P_COST
}

/// The hash verified for an unknown name or an account without a password,
/// so that a wrong name takes as long as a wrong password.
pub(crate) static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| {
    let mut raw = [0u8; 16];
    getrandom::fill(&mut raw).ok();
    hash(&crate::access::to_hex(&raw)).unwrap_or_default()
});

/// The blocking threads that hash and verify passwords: at most one per
/// core at once.
#[derive(Debug, Clone)]
pub(crate) struct Hashers(Arc<Semaphore>);

impl Default for Hashers {
    fn default() -> Hashers {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Hashers(Arc::new(Semaphore::new(cores)))
    }
}

impl Hashers {
    /// Runs `work` on a blocking thread once a hasher is free; waits at most
    /// [`HASH_WAIT`] for one, then [`Error::Busy`].
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        self.run_within(HASH_WAIT, work).await
    }

    /// [`Hashers::run`], waiting at most `wait` for a free hasher.
    async fn run_within<T: Send + 'static>(
        &self,
        wait: Duration,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        let permit = tokio::time::timeout(wait, self.0.clone().acquire_owned())
            .await
            .map_err(|_| Error::Busy)?
            .map_err(|_| Error::Busy)?;
        tokio::task::spawn_blocking(move || {
            let out = work();
            drop(permit);
            out
        })
        .await
        .map_err(|e| Error::Internal(format!("password hasher: {e}")))
    }
}

#[cfg(test)]
impl Hashers {
    /// Takes every hasher until the permit drops: a test's busy server.
    pub(crate) async fn hold_all(&self) -> tokio::sync::OwnedSemaphorePermit {
        let n = self.0.available_permits() as u32;
        self.0.clone().acquire_many_owned(n).await.expect("open")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(r: Result<Password>) -> &'static str {
        r.map(|_| "OK").unwrap_or_else(|e| e.code())
    }

    #[test]
    fn the_strength_rule() {
        let strong = "correct horse battery staple";
        assert_eq!(code(Password::new(strong, "erin", "password")), "OK");
        assert_eq!(
            code(Password::new("password1", "erin", "password")),
            "WEAK_PASSWORD"
        );
        assert_eq!(
            code(Password::new("Xy7!", "erin", "password")),
            "WEAK_PASSWORD"
        );
        let named = "Gandalf-the-grey-rides-north";
        assert_eq!(
            code(Password::new(named, "gandalf", "password")),
            "WEAK_PASSWORD"
        );
        assert_eq!(code(Password::new(named, "erin", "password")), "OK");
        let long = "x".repeat(1_001);
        assert_eq!(
            code(Password::new(&long, "erin", "password")),
            "VALIDATION_FAILED"
        );
        let tab = "correct\thorse battery staple";
        assert_eq!(code(Password::new(tab, "erin", "new")), "VALIDATION_FAILED");
        let e = Password::new("password1", "erin", "password").unwrap_err();
        assert!(e.to_string().contains("at least 8 characters"), "{e}");
        assert_eq!(
            format!("{:?}", Password::new(strong, "erin", "p").unwrap()),
            "Password(…)"
        );
    }

    #[tokio::test]
    async fn a_hash_past_the_cores_waits_then_is_busy() {
        let hashers = Hashers(Arc::new(Semaphore::new(1)));
        let (started, release) = (
            Arc::new(tokio::sync::Notify::new()),
            Arc::new(std::sync::Barrier::new(2)),
        );
        let busy = {
            let (hashers, started, release) = (hashers.clone(), started.clone(), release.clone());
            tokio::spawn(async move {
                hashers
                    .run(move || {
                        started.notify_one();
                        release.wait();
                    })
                    .await
            })
        };
        started.notified().await;
        let refused = hashers.run_within(Duration::from_millis(50), || 1).await;
        assert_eq!(refused.unwrap_err().code(), "BUSY");
        let waiting = {
            let hashers = hashers.clone();
            tokio::spawn(async move { hashers.run_within(Duration::from_secs(30), || 2).await })
        };
        release.wait();
        busy.await.unwrap().unwrap();
        assert_eq!(
            waiting.await.unwrap().unwrap(),
            2,
            "a free hasher serves the next in line"
        );
    }

    #[test]
    fn hashes_are_argon2id_with_owasp_parameters() {
        let stored = hash("correct horse battery staple").unwrap();
        assert!(
            stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{stored}"
        );
        assert!(verify("correct horse battery staple", &stored));
        assert!(!verify("correct horse battery stapler", &stored));
        assert!(!verify("x", "not a hash"));
        assert!(!is_outdated(&stored));
        let weaker = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(8 * 1024, 1, 1, None).unwrap(),
        );
        let old = weaker.hash_password(b"pw").unwrap().to_string();
        assert!(is_outdated(&old) && verify("pw", &old));
        assert!(verify("pw", &old), "an older hash still verifies");
        assert!(!verify("pw", &DUMMY_HASH));
    }
}
