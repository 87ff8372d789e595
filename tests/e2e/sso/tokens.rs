//! The ID token (api.md §27), against the provider of `.ci/oidc-provider.py`:
//! a token that fails any one check is refused, and nothing changes; ES256
//! keys; a provider that takes only `client_secret_post`; and a new signing
//! key, fetched again on its unknown key id at most once a minute. And
//! discovery: refused when it names another issuer or redirects.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::*;

/// The next ID token the provider at `issuer` gives `sub` is changed by
/// `change` (`{"claims": …, "sign": …}`, see `.ci/oidc-provider.py`).
async fn tamper(issuer: &str, sub: &str, change: Value) {
    let r = reqwest::Client::new()
        .put(format!("{issuer}/test/tamper/{sub}"))
        .json(&change)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 204, "the provider took the change");
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A provider of one test's own, started with `args`; stopped when dropped.
struct OwnProvider {
    url: String,
    _child: tokio::process::Child,
}

async fn own_provider(args: &[&str]) -> OwnProvider {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = tokio::process::Command::new("bash")
        .arg(".ci/oidc-provider")
        .arg("start")
        .arg(port.to_string())
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start .ci/oidc-provider");
    let url = format!("http://127.0.0.1:{port}");
    let began = Instant::now();
    let discovery = format!("{url}/.well-known/openid-configuration");
    while reqwest::get(&discovery)
        .await
        .map(|r| r.status().as_u16())
        .ok()
        != Some(200)
    {
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "the provider did not start"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    OwnProvider { url, _child: child }
}

with_provider! {
    // Each check alone: a token re-signed with the published key and no
    // change gets in, and so do one expired within the 60 s leeway and one
    // for several audiences whose azp is this client; each
    // token below differs from it by one thing, is refused with SSO_TOKEN,
    // and leaves every account and identity as it was.
    async fn an_id_token_failing_any_check_is_refused(backend) {
        let app = app(backend, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
        let issuer = issuer();
        let refused: [(&str, Value); 8] = [
            ("another audience", json!({"claims": {"aud": "another-client"}})),
            ("several audiences, azp another", json!({"claims": {"aud": ["board-test", "another-client"], "azp": "another-client"}})),
            ("several audiences, no azp", json!({"claims": {"aud": ["board-test", "another-client"], "azp": null}})),
            ("another issuer", json!({"claims": {"iss": "http://127.0.0.1:9"}})),
            ("a wrong nonce", json!({"claims": {"nonce": "not-the-one-board-sent"}})),
            ("expired", json!({"claims": {"exp": now() - 120, "iat": now() - 3600}})),
            ("alg none", json!({"sign": "none"})),
            ("a key never published", json!({"sign": "unpublished"})),
        ];
        for (what, change) in refused {
            let sub = person(json!({"preferred_username": format!("p-{}", cuid2::create_id())})).await;
            tamper(&issuer, &sub, change).await;
            let accounts = count(&app, "SELECT COUNT(*) FROM accounts").await;
            let identities = count(&app, "SELECT COUNT(*) FROM identities").await;
            let mut b = Browser::new(&app);
            assert_eq!(b.sign_in(&sub, "").await, "/?sso=SSO_TOKEN", "{what}");
            assert_eq!(b.session, None, "{what}");
            assert_eq!(count(&app, "SELECT COUNT(*) FROM accounts").await, accounts, "{what}");
            assert_eq!(count(&app, "SELECT COUNT(*) FROM identities").await, identities, "{what}");
        }
        for (what, change) in [
            ("re-signed, unchanged", json!({"sign": "published"})),
            ("expired 30 s ago", json!({"claims": {"exp": now() - 30}})),
            ("several audiences, azp this client", json!({"claims": {"aud": ["another-client", "board-test"], "azp": "board-test"}})),
        ] {
            let sub = person(json!({"preferred_username": format!("p-{}", cuid2::create_id())})).await;
            tamper(&issuer, &sub, change).await;
            let mut b = Browser::new(&app);
            assert_eq!(b.sign_in(&sub, "").await, "/", "{what}");
            assert_eq!(b.me().await.0, 200, "{what}");
        }
    }

    // ES256 keys, and a provider whose discovery lists only
    // client_secret_post (it refuses Basic). Then the provider signs with a
    // new key: within a minute of the last fetch the unknown key id is
    // refused without a fetch; after it, the keys are fetched again once.
    // The refusal is asserted only when the app started (and so fetched
    // the keys) less than a minute before the answer came back; a machine
    // so loaded that it took longer tries again with a new app.
    async fn es256_client_secret_post_and_a_new_key(backend) {
        for attempt in 1..=3 {
            let provider = own_provider(&["--alg", "ES256", "--auth", "post"]).await;
            let started = Instant::now();
            let app = app_at(backend, &provider.url, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
            let discovered = Instant::now();
            let sub = person_at(&provider.url, json!({"preferred_username": "ec"})).await;
            let mut b = Browser::new(&app);
            assert_eq!(b.sign_in(&sub, "").await, "/");
            assert_eq!(b.me().await.1["name"], "ec");

            let r = reqwest::Client::new().post(format!("{}/test/rotate", provider.url)).send().await.unwrap();
            assert_eq!(r.status().as_u16(), 204);
            let sub = person_at(&provider.url, json!({"preferred_username": "rotated"})).await;
            let mut b = Browser::new(&app);
            let within_a_minute = b.sign_in(&sub, "").await;
            let took = started.elapsed();
            if took >= board_core::KEYS_REFRESH && attempt < 3 {
                eprintln!("attempt {attempt}: {took:?} from the app's start to the refusal; again");
                continue;
            }
            assert_eq!(within_a_minute, "/?sso=SSO_TOKEN", "keys fetched less than {took:?} ago");
            let wait = (board_core::KEYS_REFRESH + Duration::from_secs(1)).saturating_sub(discovered.elapsed());
            tokio::time::sleep(wait).await;
            let mut b = Browser::new(&app);
            assert_eq!(b.sign_in(&sub, "").await, "/", "the keys fetched again");
            assert_eq!(b.me().await.1["name"], "rotated");
            return;
        }
    }
}

with_provider! {
    // Discovery is believed only when it names the configured issuer, and
    // the provider's client follows no redirect (here, from the keys' URL):
    // either way single sign-on stays unavailable, and passwords work.
    async fn discovery_of_another_issuer_or_through_a_redirect_is_refused(backend) {
        for args in [&["--issuer", "http://elsewhere.test"][..], &["--redirect-keys"][..]] {
            let provider = own_provider(args).await;
            let app = app_at(backend, &provider.url, &[]).await;
            let mut b = Browser::new(&app);
            let res = b.get("/api/auth/oidc/start").await;
            assert_eq!(res.status().as_u16(), 503, "{args:?}");
            let body: Value = res.json().await.unwrap();
            assert_eq!(body["error"], "PROVIDER_UNAVAILABLE", "{args:?}");
            password_session(&app, "admin").await;
        }
    }
}
