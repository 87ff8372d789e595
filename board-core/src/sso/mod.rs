//! Single sign-on with OpenID Connect (api.md §27): the provider, found by
//! discovery, and the code flow's two halves ([`flow`]).
//!
//! **The provider.** [`Provider`] holds the settings and, once discovery has
//! answered, the provider's metadata and its signing keys. Discovery runs at
//! start; when the provider cannot be reached, [`Provider::keep_discovering`]
//! retries in the background (1 s, doubling to a minute) while the server
//! serves: until it answers, a start is [`Error::ProviderUnavailable`] and
//! passwords work as ever. The `issuer` discovery states must be the
//! configured one (openidconnect checks it).
//!
//! **Requests to the provider** go through one `reqwest` client (the
//! workspace's: rustls on ring) that follows no redirect and gives up after
//! [`PROVIDER_TIMEOUT`], and only to the endpoints discovery named: the
//! keys (`jwks_uri`) and the token endpoint. A token signed with a key id the
//! keys lack fetches them again, at most once a [`KEYS_REFRESH`].

mod flow;
mod identities;

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use openidconnect::core::{
    CoreAuthDisplay, CoreClaimName, CoreClaimType, CoreClientAuthMethod, CoreGrantType,
    CoreJsonWebKey, CoreJsonWebKeySet, CoreJweContentEncryptionAlgorithm,
    CoreJweKeyManagementAlgorithm, CoreResponseMode, CoreResponseType, CoreSubjectIdentifierType,
};
use openidconnect::{AdditionalProviderMetadata, IssuerUrl, ProviderMetadata};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub use flow::{SsoCallback, SsoDone, SsoStart, SsoStarted, SSO_STATE_LIFETIME};
pub(crate) use identities::identities_of;
pub use identities::Identity;

/// How long one request to the provider may take.
pub const PROVIDER_TIMEOUT: Duration = Duration::from_secs(10);
/// The least time between two fetches of the provider's keys.
pub const KEYS_REFRESH: Duration = Duration::from_secs(60);
/// The button's words when `--oidc-name` is not given.
pub const DEFAULT_SSO_NAME: &str = "Single sign-on";
/// The scopes asked for when `--oidc-scopes` is not given.
pub const DEFAULT_SSO_SCOPES: &str = "openid profile email";

/// What the operator configured (`--oidc-*`).
#[derive(Clone)]
pub struct SsoSettings {
    /// The provider's issuer URL (`--oidc-issuer`).
    pub issuer: String,
    /// This installation's client id at the provider.
    pub client_id: String,
    /// Its client secret (never logged; a public client has none).
    pub client_secret: Option<String>,
    /// The button's words (`Sign in with <name>`).
    pub name: String,
    /// The scopes asked for, `openid` among them.
    pub scopes: Vec<String>,
    /// `--oidc-create-accounts`: an unknown identity makes a new account
    /// without any workspace (else the sign-in page asks for an invitation).
    pub create_accounts: bool,
    /// `--oidc-link-verified-email`: an unknown identity whose token says
    /// its address is verified links the one account whose verified
    /// address it is (off: an address never chooses an account).
    pub link_verified_email: bool,
}

impl std::fmt::Debug for SsoSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoSettings")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("name", &self.name)
            .field("scopes", &self.scopes)
            .field("create_accounts", &self.create_accounts)
            .field("link_verified_email", &self.link_verified_email)
            .finish_non_exhaustive()
    }
}

/// The one field of the provider's metadata openidconnect's core types lack:
/// where its sign-out is.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub(crate) struct LogoutMetadata {
    /// `end_session_endpoint` (OpenID Connect RP-Initiated Logout).
    pub(crate) end_session_endpoint: Option<String>,
}

impl AdditionalProviderMetadata for LogoutMetadata {}

/// The provider's metadata, as discovery returned it.
pub(crate) type Metadata = ProviderMetadata<
    LogoutMetadata,
    CoreAuthDisplay,
    CoreClientAuthMethod,
    CoreClaimName,
    CoreClaimType,
    CoreGrantType,
    CoreJweContentEncryptionAlgorithm,
    CoreJweKeyManagementAlgorithm,
    CoreJsonWebKey,
    CoreResponseMode,
    CoreResponseType,
    CoreSubjectIdentifierType,
>;

/// The configured OpenID provider of a server: its settings, and what
/// discovery found (none until it answered).
pub struct Provider {
    settings: SsoSettings,
    http: reqwest::Client,
    found: RwLock<Option<Metadata>>,
    keys_fetched: Mutex<Option<Instant>>,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("settings", &self.settings)
            .field("discovered", &self.is_discovered())
            .finish_non_exhaustive()
    }
}

impl Provider {
    /// A provider of `settings`, not yet discovered. A malformed issuer URL
    /// is a configuration error.
    pub fn new(settings: SsoSettings) -> Result<Arc<Provider>> {
        IssuerUrl::new(settings.issuer.clone()).map_err(|e| {
            Error::Config(format!(
                "--oidc-issuer {:?} is not a URL ({e}): give the provider's issuer, \
                 e.g. https://id.example.com/realms/main",
                settings.issuer
            ))
        })?;
        if settings.client_id.trim().is_empty() {
            return Err(Error::Config(
                "--oidc-issuer needs --oidc-client-id: this installation's client id at the \
                 provider"
                    .into(),
            ));
        }
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(PROVIDER_TIMEOUT)
            .connect_timeout(PROVIDER_TIMEOUT)
            .no_proxy()
            .build()
            .map_err(|e| Error::Config(format!("cannot build the provider's client: {e}")))?;
        Ok(Arc::new(Provider {
            settings,
            http,
            found: RwLock::new(None),
            keys_fetched: Mutex::new(None),
        }))
    }

    /// The settings.
    pub fn settings(&self) -> &SsoSettings {
        &self.settings
    }

    /// The button's words.
    pub fn name(&self) -> &str {
        &self.settings.name
    }

    /// Whether discovery has answered.
    pub fn is_discovered(&self) -> bool {
        self.found.read().map(|f| f.is_some()).unwrap_or(false)
    }

    /// One discovery: `<issuer>/.well-known/openid-configuration` and the
    /// keys it names. The issuer it states must be the configured one.
    pub async fn discover(&self) -> Result<()> {
        let issuer = IssuerUrl::new(self.settings.issuer.clone())
            .map_err(|e| Error::Config(format!("--oidc-issuer: {e}")))?;
        let metadata = Metadata::discover_async(issuer, &self.http)
            .await
            .map_err(|e| Error::ProviderUnavailable(format!("discovery failed: {e}")))?;
        *self.found.write().unwrap_or_else(|e| e.into_inner()) = Some(metadata);
        *self.keys_fetched.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        Ok(())
    }

    /// Discovers, and while the provider cannot be reached, tries again in
    /// the background (after 1 s, doubling up to a minute), logging why.
    /// Returns the task (abort it to stop).
    pub fn keep_discovering(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let provider = self.clone();
        tokio::spawn(async move {
            let mut wait = Duration::from_secs(1);
            loop {
                match provider.discover().await {
                    Ok(()) => {
                        tracing::info!(issuer = %provider.settings.issuer, "OpenID provider discovered");
                        return;
                    }
                    Err(e) => {
                        tracing::warn!(issuer = %provider.settings.issuer, error = %e, retry_in_s = wait.as_secs(),
                            "OpenID provider unreachable: single sign-on waits, passwords work");
                    }
                }
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(60));
            }
        })
    }

    /// The metadata, or 503 `PROVIDER_UNAVAILABLE` while discovery has not
    /// answered.
    pub(crate) fn metadata(&self) -> Result<Metadata> {
        self.found
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| {
                Error::ProviderUnavailable(
                    "the sign-in provider cannot be reached now: try again in a minute, or \
                     sign in with a password"
                        .into(),
                )
            })
    }

    /// Fetches the provider's keys again, unless they were fetched less than
    /// [`KEYS_REFRESH`] ago. True when it fetched new ones.
    pub(crate) async fn refresh_keys(&self) -> Result<bool> {
        {
            let mut last = self.keys_fetched.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|at| at.elapsed() < KEYS_REFRESH) {
                return Ok(false);
            }
            *last = Some(Instant::now());
        }
        let uri = self.metadata()?.jwks_uri().clone();
        let keys = CoreJsonWebKeySet::fetch_async(&uri, &self.http)
            .await
            .map_err(|e| Error::ProviderUnavailable(format!("fetching the keys failed: {e}")))?;
        let mut found = self.found.write().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = found.take() {
            *found = Some(m.set_jwks(keys));
        }
        Ok(true)
    }

    /// The provider's sign-out page for a session that signed in with
    /// `id_token`, returning to `public_url/` (none when discovery named no
    /// `end_session_endpoint`).
    pub fn logout_url(&self, id_token: &str, public_url: &str) -> Option<String> {
        let metadata = self.metadata().ok()?;
        let end = metadata
            .additional_metadata()
            .end_session_endpoint
            .clone()?;
        let mut url = reqwest::Url::parse(&end).ok()?;
        url.query_pairs_mut()
            .append_pair("id_token_hint", id_token)
            .append_pair(
                "post_logout_redirect_uri",
                &format!("{}/", public_url.trim_end_matches('/')),
            );
        Some(url.to_string())
    }
}
