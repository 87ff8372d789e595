//! Single sign-on as server processes do it (api.md §27): a state made on one
//! server completes on another of the same database; and after sign-ins,
//! refused tokens and a sign-out through the provider, at the debug level, no
//! line of the log holds the client secret, a state, a nonce, a code, an ID
//! token or a session. The provider is `.ci/oidc-provider`'s, named by
//! `BOARD_TEST_OIDC_URL`; without it (at build time) the tests are ignored.

use serde_json::{json, Value};
use testkit::process::{log_path, start_server};
use testkit::{Backend, TestDb};

const SERVER: &str = env!("CARGO_BIN_EXE_board-server");
const SECRET: &str = "a-client-secret-only-the-log-test-knows";

fn issuer() -> String {
    std::env::var("BOARD_TEST_OIDC_URL")
        .expect("BOARD_TEST_OIDC_URL")
        .trim_end_matches('/')
        .to_string()
}

/// The value of the `name` cookie that `res` sets.
fn cookie(res: &reqwest::Response, name: &str) -> Option<String> {
    res.headers().get_all("set-cookie").iter().find_map(|v| {
        let v = v.to_str().ok()?;
        let value = v.split(';').next()?.strip_prefix(&format!("{name}="))?;
        Some(value.to_string()).filter(|v| !v.is_empty())
    })
}

fn location(res: &reqwest::Response) -> String {
    res.headers()["location"].to_str().unwrap().to_string()
}

/// One sign-in of a new person whose next token `change` alters (see
/// `.ci/oidc-provider.py`): where it landed, the session, and every secret
/// the flow showed (state, nonce, code, session).
async fn flow(base: &str, change: Option<Value>) -> (String, Option<String>, Vec<String>) {
    flow_across(base, base, change).await
}

/// [`flow`], started on `base` and ended (the callback) on `finish`.
async fn flow_across(
    base: &str,
    finish: &str,
    change: Option<Value>,
) -> (String, Option<String>, Vec<String>) {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let sub = format!("sub-{}", cuid2::create_id());
    let claims = json!({"preferred_username": format!("p-{}", cuid2::create_id())});
    let r = http
        .put(format!("{}/users/{sub}", issuer()))
        .json(&claims)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 204);
    if let Some(change) = change {
        let r = http
            .put(format!("{}/test/tamper/{sub}", issuer()))
            .json(&change)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 204);
    }
    let res = http
        .get(format!("{base}/api/auth/oidc/start"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 302);
    let state_cookie = cookie(&res, "board_oidc").expect("board_oidc");
    let authorize = reqwest::Url::parse(&location(&res)).unwrap();
    let mut secrets = vec![state_cookie.clone()];
    for (k, v) in authorize.query_pairs() {
        if k == "state" || k == "nonce" {
            secrets.push(v.to_string());
        }
    }
    let res = http
        .post(authorize)
        .form(&[("sub", sub.as_str())])
        .send()
        .await
        .unwrap();
    let callback = reqwest::Url::parse(&location(&res)).unwrap();
    secrets.extend(
        callback
            .query_pairs()
            .filter(|(k, _)| k == "code")
            .map(|(_, v)| v.to_string()),
    );
    let callback = format!(
        "{finish}{}?{}",
        callback.path(),
        callback.query().unwrap_or("")
    );
    let res = http
        .get(callback)
        .header("cookie", format!("board_oidc={state_cookie}"))
        .send()
        .await
        .unwrap();
    let session = cookie(&res, "board_session");
    secrets.extend(session.clone());
    (location(&res), session, secrets)
}

async fn no_secret_of_single_sign_on_reaches_the_log(backend: Backend) {
    let db = TestDb::new(backend).await;
    let issuer = issuer();
    let env = [
        ("BOARD_LOG", "debug"),
        ("BOARD_OIDC_ISSUER", issuer.as_str()),
        ("BOARD_OIDC_CLIENT_ID", "board-log-test"),
        ("BOARD_OIDC_CLIENT_SECRET", SECRET),
        ("BOARD_OIDC_CREATE_ACCOUNTS", "true"),
    ];
    let server = start_server(SERVER, &db, &env).await;
    let mut secrets = vec![SECRET.to_string()];

    let (landed, session, seen) = flow(&server.base, None).await;
    assert_eq!(landed, "/");
    secrets.extend(seen);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    for change in [
        json!({"claims": {"aud": "another-client"}}),
        json!({"claims": {"exp": now - 600}}),
        json!({"claims": {"nonce": "not-the-one"}}),
        json!({"sign": "unpublished"}),
    ] {
        let (landed, refused, seen) = flow(&server.base, Some(change)).await;
        assert_eq!((landed.as_str(), refused), ("/?sso=SSO_TOKEN", None));
        secrets.extend(seen);
    }
    // Signing out hands back the ID token, for the provider's sign-out page.
    let session = session.expect("signed in");
    let res = reqwest::Client::new()
        .delete(format!("{}/api/session", server.base))
        .header("cookie", format!("board_session={session}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let out: Value = res.json().await.unwrap();
    let logout = reqwest::Url::parse(out["logoutUrl"].as_str().expect("logoutUrl")).unwrap();
    let id_token = logout
        .query_pairs()
        .find(|(k, _)| k == "id_token_hint")
        .map(|(_, v)| v.to_string())
        .expect("id_token_hint");
    // Its header, claims and signature, each: none of them is logged.
    secrets.extend(id_token.split('.').map(String::from));

    drop(server);
    let log = std::fs::read_to_string(log_path(&db)).unwrap();
    assert!(
        log.contains("DEBUG"),
        "the log is at the debug level: {log}"
    );
    assert!(
        log.contains("SSO_TOKEN") || log.contains("ID token"),
        "refusals are logged: {log}"
    );
    for secret in secrets.iter().filter(|s| s.len() >= 16) {
        assert!(
            !log.contains(secret.as_str()),
            "the log holds a secret ({} bytes)",
            secret.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(board_test_oidc), ignore = "BOARD_TEST_OIDC_URL is not set")]
async fn no_secret_of_single_sign_on_reaches_the_log_sqlite() {
    no_secret_of_single_sign_on_reaches_the_log(Backend::Sqlite).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(all(board_test_oidc, board_test_postgres)),
    ignore = "BOARD_TEST_OIDC_URL or BOARD_TEST_POSTGRES_URL is not set"
)]
async fn no_secret_of_single_sign_on_reaches_the_log_postgres() {
    no_secret_of_single_sign_on_reaches_the_log(Backend::Postgres).await
}

/// Two servers of one database behind one public address: a sign-in started
/// on one completes on the other (the state lives in the database).
async fn a_state_made_on_one_server_completes_on_another(backend: Backend) {
    let db = TestDb::new(backend).await;
    let issuer = issuer();
    let env = [
        ("BOARD_PUBLIC_URL", "http://board.example.test"),
        ("BOARD_OIDC_ISSUER", issuer.as_str()),
        ("BOARD_OIDC_CLIENT_ID", "board-two-servers"),
        ("BOARD_OIDC_CLIENT_SECRET", SECRET),
        ("BOARD_OIDC_CREATE_ACCOUNTS", "true"),
    ];
    let one = start_server(SERVER, &db, &env).await;
    let two = start_server(SERVER, &db, &env).await;
    let (landed, session, _) = flow_across(&one.base, &two.base, None).await;
    assert_eq!((landed.as_str(), session.is_some()), ("/", true));
    let me = reqwest::Client::new()
        .get(format!("{}/api/me", one.base))
        .header("cookie", format!("board_session={}", session.unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(
        me.status().as_u16(),
        200,
        "the session serves on the first server too"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(board_test_oidc), ignore = "BOARD_TEST_OIDC_URL is not set")]
async fn a_state_made_on_one_server_completes_on_another_sqlite() {
    a_state_made_on_one_server_completes_on_another(Backend::Sqlite).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(all(board_test_oidc, board_test_postgres)),
    ignore = "BOARD_TEST_OIDC_URL or BOARD_TEST_POSTGRES_URL is not set"
)]
async fn a_state_made_on_one_server_completes_on_another_postgres() {
    a_state_made_on_one_server_completes_on_another(Backend::Postgres).await
}
