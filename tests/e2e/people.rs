//! People (api.md §23): signing in with a password, the session cookie,
//! signing out, "who am I", and the sign-in throttle across two servers.

use std::sync::Arc;

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};
use tokio::sync::Barrier;

const PASSWORD: &str = "correct horse battery staple";

/// An answer with the headers a sign-in sets.
struct Answer {
    status: u16,
    body: Value,
    cookie: Option<String>,
    retry_after: Option<u64>,
}

/// `POST /api/session` to `base` from `address` (`X-Forwarded-For`), with
/// extra headers.
async fn sign_in_at(
    http: &reqwest::Client,
    base: &str,
    address: &str,
    name: &str,
    password: &str,
    headers: &[(&str, &str)],
) -> Answer {
    let mut req = http
        .post(format!("{base}/api/session"))
        .header("x-forwarded-for", address)
        .json(&json!({"name": name, "password": password}));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = req.send().await.expect("sign-in");
    let header = |name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let (cookie, retry_after) = (header("set-cookie"), header("retry-after"));
    Answer {
        status: res.status().as_u16(),
        cookie,
        retry_after: retry_after.and_then(|v| v.parse().ok()),
        body: res.json().await.unwrap_or(Value::Null),
    }
}

async fn sign_in(app: &common::App, address: &str, name: &str, password: &str) -> Answer {
    sign_in_at(&app.http, &app.base, address, name, password, &[]).await
}

/// The `board_session` value a `Set-Cookie` sets.
fn session_of(cookie: &str) -> String {
    let first = cookie.split(';').next().unwrap();
    first
        .strip_prefix("board_session=")
        .expect(cookie)
        .to_string()
}

/// Gives the account `name` the password [`PASSWORD`], as the operator.
async fn with_password(app: &common::App, name: &str) -> String {
    let admin = app.operator().admin();
    let account = admin.find_account(name).await.unwrap();
    admin.set_password(&account.id, PASSWORD).await.unwrap();
    account.id.as_str().to_string()
}

async fn with_cookie(app: &common::App, method: &str, path: &str, session: &str) -> common::Res {
    let cookie = format!("board_session={session}");
    app.raw(method, path, &[("cookie", &cookie)], "").await
}

on_both_backends! {
    async fn a_sign_in_opens_a_session_in_a_cookie_only(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        let id = with_password(&app, "admin").await;
        let weak = app.operator().admin().set_password(&board_core::AccountId::parse(&id).unwrap(), "password1").await;
        assert_eq!(weak.unwrap_err().code(), "WEAK_PASSWORD");

        let r = sign_in(&app, "10.1.0.1", "admin", PASSWORD).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["account"], json!({"id": id, "name": "admin"}));
        assert!(r.body["expiresAt"].is_string(), "{:?}", r.body);
        let cookie = r.cookie.expect("Set-Cookie");
        let session = session_of(&cookie);
        assert!(session.starts_with("brd_"), "{cookie}");
        assert!(!r.body.to_string().contains(&session), "the token is never in the body");
        for part in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] {
            assert!(cookie.contains(part), "{part}: {cookie}");
        }
        assert!(!cookie.contains("Secure"), "{cookie}");

        let me = with_cookie(&app, "GET", "/api/me", &session).await;
        assert_eq!(me.status, 200, "{:?}", me.body);
        assert_eq!((me.body["id"].as_str(), me.body["hasPassword"].as_bool()), (Some(id.as_str()), Some(true)));
        let ws = &me.body["workspaces"];
        assert_eq!((ws[0]["id"].as_str(), ws[0]["role"].as_str()), (Some(app.tenant.as_str()), Some("ADMIN")));
        assert_eq!(ws[0]["projects"], json!([]));

        // One answer for a wrong password, an unknown name and no password.
        app.account_in(&app.tenant, "nopass", "member").await;
        let mut bodies = Vec::new();
        for (name, password) in [("admin", "wrong horse battery staple"), ("nobody", PASSWORD), ("nopass", PASSWORD)] {
            let r = sign_in(&app, "10.1.0.2", name, password).await;
            assert_eq!((r.status, r.cookie.is_none()), (401, true), "{name}: {:?}", r.body);
            assert_eq!(r.body["error"], "BAD_CREDENTIALS");
            bodies.push(r.body);
        }
        assert!(bodies.windows(2).all(|w| w[0] == w[1]), "{bodies:?}");

        // From a foreign origin: refused before any check.
        for headers in [[("origin", "https://evil.example")], [("sec-fetch-site", "cross-site")]] {
            let r = sign_in_at(&app.http, &app.base, "10.1.0.3", "admin", PASSWORD, &headers).await;
            assert_eq!((r.status, r.body["error"].as_str()), (403, Some("CROSS_ORIGIN")), "{headers:?}");
            assert!(r.cookie.is_none());
        }
        let own = app.base.clone();
        let r = sign_in_at(&app.http, &app.base, "10.1.0.3", "admin", PASSWORD, &[("origin", &own)]).await;
        assert_eq!(r.status, 200, "its own origin: {:?}", r.body);

        // A personal token is no session; the session's own cookie signs out.
        let r = app.call("DELETE", "/api/session", None).await;
        assert_eq!(r.status, 404, "{:?}", r.body);
        let res = app.http.delete(format!("{}/api/session", app.base))
            .header("cookie", format!("board_session={session}")).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let cleared = res.headers()["set-cookie"].to_str().unwrap().to_string();
        assert!(cleared.starts_with("board_session=;") && cleared.contains("Max-Age=0"), "{cleared}");
        assert_eq!(with_cookie(&app, "GET", "/api/me", &session).await.status, 401);
        assert_eq!(app.call("GET", "/api/me", None).await.status, 200, "personal tokens stay");

        // A new password ends the sessions.
        let r = sign_in(&app, "10.1.0.1", "admin", PASSWORD).await;
        let session = session_of(&r.cookie.unwrap());
        with_password(&app, "admin").await;
        assert_eq!(with_cookie(&app, "GET", "/api/me", &session).await.status, 401);
    }
}

on_both_backends! {
    // A hash made with weaker parameters than OWASP's is replaced at the next
    // sign-in, and still lets that sign-in through.
    async fn a_weaker_hash_is_replaced_at_sign_in(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        // Argon2id of PASSWORD at 8 MiB, 1 pass (as an older release might have made it).
        let old = "$argon2id$v=19$m=8192,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$EstMPFmPwEV1ZKsYgQUv5J+Zg0iQylaykGB5kmbPnSE";
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&app.db.url).await.unwrap();
        sqlx::query("UPDATE accounts SET password_hash = $1 WHERE name = 'admin'").bind(old).execute(&pool).await.unwrap();
        let r = sign_in(&app, "10.1.1.1", "admin", PASSWORD).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let now: String = sqlx::query_scalar("SELECT password_hash FROM accounts WHERE name = 'admin'").fetch_one(&pool).await.unwrap();
        assert!(now.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{now}");
        pool.close().await;
        assert_eq!(sign_in(&app, "10.1.1.1", "admin", PASSWORD).await.status, 200, "the new hash serves");
    }

    // The hourly sweep deletes failures that left the window, of every address.
    async fn failures_past_the_window_are_pruned(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        assert_eq!(sign_in(&app, "10.1.2.1", "nobody", PASSWORD).await.status, 401);
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&app.db.url).await.unwrap();
        let old = board_core::Timestamp::from_millis(0);
        sqlx::query("INSERT INTO auth_failures (id, address, subject, at) VALUES ('old', '10.1.2.2', 'x', $1)")
            .bind(old.as_str()).execute(&pool).await.unwrap();
        assert_eq!(app.operator().admin().prune_auth_failures().await.unwrap(), 1);
        let left: Vec<String> = sqlx::query_scalar("SELECT address FROM auth_failures").fetch_all(&pool).await.unwrap();
        assert_eq!(left, ["10.1.2.1"], "the window's failures stay");
        pool.close().await;
    }
}

#[tokio::test]
async fn secure_cookies_and_the_session_lifetime() {
    let env = [
        ("BOARD_SECURE_COOKIES", "true"),
        ("BOARD_SESSION_LIFETIME", "2h"),
    ];
    let app = common::spawn_app_with(common::Backend::Sqlite, &env).await;
    with_password(&app, "admin").await;
    let r = sign_in(&app, "ignored", "admin", PASSWORD).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let cookie = r.cookie.unwrap();
    assert!(
        cookie.contains("; Secure") && cookie.contains("Max-Age=7200"),
        "{cookie}"
    );
}

on_both_backends! {
    async fn the_throttle_counts_per_pair_and_address_across_servers(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        with_password(&app, "admin").await;
        let second = app.second_server().await;
        let bases = [app.base.clone(), second.base.clone()];
        let at = |i: usize| bases[i % 2].clone();
        let wrong = "wrong horse battery staple";

        // Five failures of one pair, alternating servers: then 429, even
        // with the right password, with Retry-After within the window.
        for i in 0..5 {
            let r = sign_in_at(&app.http, &at(i), "10.2.0.1", "admin", wrong, &[]).await;
            assert_eq!(r.status, 401, "failure {i}: {:?}", r.body);
        }
        let r = sign_in_at(&app.http, &at(5), "10.2.0.1", "admin", PASSWORD, &[]).await;
        assert_eq!((r.status, r.body["error"].as_str()), (429, Some("TOO_MANY_ATTEMPTS")), "{:?}", r.body);
        let retry = r.retry_after.expect("Retry-After");
        assert!((1..=900).contains(&retry), "{retry}");
        // No one locks a colleague out from another address.
        assert_eq!(sign_in(&app, "10.2.0.2", "admin", PASSWORD).await.status, 200);

        // A success clears its pair.
        for _ in 0..4 {
            assert_eq!(sign_in(&app, "10.2.0.3", "admin", wrong).await.status, 401);
        }
        assert_eq!(sign_in(&app, "10.2.0.3", "admin", PASSWORD).await.status, 200);
        for _ in 0..5 {
            assert_eq!(sign_in(&app, "10.2.0.3", "admin", wrong).await.status, 401);
        }
        assert_eq!(sign_in(&app, "10.2.0.3", "admin", wrong).await.status, 429);

        // Fifty failures from one address, over many names: every sign-in
        // from it is refused, another address is not.
        for i in 0..50 {
            let r = sign_in_at(&app.http, &at(i), "10.2.0.4", &format!("nobody{i}"), wrong, &[]).await;
            assert_eq!(r.status, 401, "failure {i}: {:?}", r.body);
        }
        assert_eq!(sign_in(&app, "10.2.0.4", "admin", PASSWORD).await.status, 429);
        assert_eq!(sign_in(&app, "10.2.0.5", "admin", PASSWORD).await.status, 200);
    }

    // Sixteen wrong sign-ins of one pair at once over two servers: the
    // reservation under the address's lock lets exactly five be checked.
    async fn racing_failures_are_counted_before_any_is_checked(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        with_password(&app, "admin").await;
        let second = app.second_server().await;
        let bases = Arc::new([app.base.clone(), second.base.clone()]);
        let barrier = Arc::new(Barrier::new(16));
        let mut tasks = Vec::new();
        for i in 0..16 {
            let (http, bases, barrier) = (app.http.clone(), bases.clone(), barrier.clone());
            tasks.push(tokio::spawn(async move {
                barrier.wait().await;
                let wrong = "wrong horse battery staple";
                sign_in_at(&http, &bases[i % 2], "10.3.0.1", "admin", wrong, &[]).await.status
            }));
        }
        let mut statuses = Vec::new();
        for t in tasks {
            statuses.push(t.await.unwrap());
        }
        statuses.sort();
        let checked = statuses.iter().filter(|s| **s == 401).count();
        assert_eq!(checked, 5, "{statuses:?}");
        assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 11, "{statuses:?}");
    }

    // Right passwords racing one another over two servers all get in (an
    // attempt in progress is not a failure), even past the pair's budget.
    async fn racing_right_passwords_all_get_in(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        with_password(&app, "admin").await;
        let second = app.second_server().await;
        let bases = Arc::new([app.base.clone(), second.base.clone()]);
        // Four failures first: one attempt of budget left, eight racing.
        for _ in 0..4 {
            assert_eq!(sign_in(&app, "10.3.1.1", "admin", "wrong horse battery staple").await.status, 401);
        }
        let barrier = Arc::new(Barrier::new(8));
        let mut tasks = Vec::new();
        for i in 0..8 {
            let (http, bases, barrier) = (app.http.clone(), bases.clone(), barrier.clone());
            tasks.push(tokio::spawn(async move {
                barrier.wait().await;
                sign_in_at(&http, &bases[i % 2], "10.3.1.1", "admin", PASSWORD, &[]).await.status
            }));
        }
        for t in tasks {
            assert_eq!(t.await.unwrap(), 200);
        }
    }

    // A name longer than an account name can be is refused like an unknown
    // one, with the same body.
    async fn an_over_long_name_is_refused_like_an_unknown_one(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        with_password(&app, "admin").await;
        let unknown = sign_in(&app, "10.3.2.1", "nobody", PASSWORD).await;
        let long = sign_in(&app, "10.3.2.1", &"y".repeat(1_000_000), PASSWORD).await;
        assert_eq!((long.status, &long.body), (401, &unknown.body));
        let long = sign_in(&app, "10.3.2.1", &format!("admin{}", " ".repeat(200)), PASSWORD).await;
        assert_eq!(long.status, 200, "trimmed, the name is admin's");
    }
}
