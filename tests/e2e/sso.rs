//! Single sign-on (api.md §27) against a real OpenID provider: the one
//! `.ci/oidc-provider` starts (oidc-provider-mock from PyPI), named by
//! `BOARD_TEST_OIDC_URL`. Without it (at build time) every test here is
//! ignored, never passed. The flow is driven as a browser would, one 302 at a
//! time: start, the provider's authorization form (posting the subject the
//! test chose), the callback with the `board_oidc` cookie.

use std::time::Duration;

use serde_json::{json, Value};
use testkit::{self as common, Backend};

const PASSWORD: &str = "correct horse battery staple";

/// Expands each body into `NAME::sqlite` and `NAME::postgres`, ignored when
/// the provider (or PostgreSQL) is not configured at build time.
macro_rules! with_provider {
    ($(async fn $name:ident($backend:ident) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn body($backend: Backend) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            #[cfg_attr(not(board_test_oidc), ignore = "BOARD_TEST_OIDC_URL is not set")]
            async fn sqlite() {
                body(Backend::Sqlite).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            #[cfg_attr(
                not(all(board_test_oidc, board_test_postgres)),
                ignore = "BOARD_TEST_OIDC_URL or BOARD_TEST_POSTGRES_URL is not set"
            )]
            async fn postgres() {
                body(Backend::Postgres).await
            }
        }
    )*};
}

/// The provider's issuer.
fn issuer() -> String {
    std::env::var("BOARD_TEST_OIDC_URL")
        .expect("BOARD_TEST_OIDC_URL")
        .trim_end_matches('/')
        .to_string()
}

/// A server with the provider configured, and `extra` settings.
async fn app(backend: Backend, extra: &[(&str, &str)]) -> common::App {
    app_at(backend, &issuer(), extra).await
}

/// A server with the provider at `issuer`, and `extra` settings.
async fn app_at(backend: Backend, issuer: &str, extra: &[(&str, &str)]) -> common::App {
    let mut env = vec![
        ("BOARD_OIDC_ISSUER", issuer),
        ("BOARD_OIDC_CLIENT_ID", "board-test"),
        ("BOARD_OIDC_CLIENT_SECRET", "board-test-secret"),
        ("BOARD_OIDC_NAME", "Mock ID"),
    ];
    env.extend_from_slice(extra);
    common::spawn_app_with(backend, &env).await
}

/// A person at the provider: a fresh subject with these claims.
async fn person(claims: Value) -> String {
    person_at(&issuer(), claims).await
}

/// A person at the provider `issuer`: a fresh subject with these claims.
async fn person_at(issuer: &str, claims: Value) -> String {
    let sub = format!("sub-{}", cuid2::create_id());
    let r = reqwest::Client::new()
        .put(format!("{issuer}/users/{sub}"))
        .json(&claims)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 204, "the provider took the claims");
    sub
}

/// A browser: its cookies for the board, following no redirect by itself.
struct Browser {
    http: reqwest::Client,
    base: String,
    session: Option<String>,
    oidc: Option<String>,
}

/// The `name` cookie a response sets (`Some("")` when it clears it).
fn set_cookie(res: &reqwest::Response, name: &str) -> Option<(String, String)> {
    res.headers().get_all("set-cookie").iter().find_map(|v| {
        let v = v.to_str().unwrap();
        let (pair, attrs) = v.split_once(';').unwrap_or((v, ""));
        let value = pair.strip_prefix(&format!("{name}="))?;
        Some((value.to_string(), attrs.to_string()))
    })
}

fn location(res: &reqwest::Response) -> String {
    res.headers()
        .get("location")
        .unwrap_or_else(|| panic!("a redirect: {}", res.status()))
        .to_str()
        .unwrap()
        .to_string()
}

impl Browser {
    fn new(app: &common::App) -> Browser {
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            base: app.base.clone(),
            session: None,
            oidc: None,
        }
    }

    fn cookies(&self) -> String {
        let mut c = Vec::new();
        if let Some(s) = &self.session {
            c.push(format!("board_session={s}"));
        }
        if let Some(s) = &self.oidc {
            c.push(format!("board_oidc={s}"));
        }
        c.join("; ")
    }

    /// `GET path` with the browser's cookies, keeping what it sets.
    async fn get(&mut self, url: &str) -> reqwest::Response {
        let url = match url.starts_with("http") {
            true => url.to_string(),
            false => format!("{}{url}", self.base),
        };
        let res = self
            .http
            .get(url)
            .header("cookie", self.cookies())
            .send()
            .await
            .unwrap();
        if let Some((v, _)) = set_cookie(&res, "board_session") {
            self.session = Some(v).filter(|v| !v.is_empty());
        }
        if let Some((v, _)) = set_cookie(&res, "board_oidc") {
            self.oidc = Some(v).filter(|v| !v.is_empty());
        }
        res
    }

    /// Starts with `query`; returns the provider's authorization URL.
    async fn start(&mut self, query: &str) -> String {
        let res = self.get(&format!("/api/auth/oidc/start{query}")).await;
        assert_eq!(res.status().as_u16(), 302, "{:?}", res.text().await);
        location(&res)
    }

    /// The person `sub` says yes at the provider: the callback URL it sends
    /// the browser to.
    async fn consent(&self, authorize: &str, sub: &str) -> String {
        let res = self
            .http
            .post(authorize)
            .form(&[("sub", sub)])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 302, "{:?}", res.text().await);
        location(&res)
    }

    /// The whole flow for `sub`: where the callback sent the browser.
    async fn sign_in(&mut self, sub: &str, query: &str) -> String {
        let authorize = self.start(query).await;
        let callback = self.consent(&authorize, sub).await;
        let res = self.get(&callback).await;
        assert_eq!(res.status().as_u16(), 302);
        location(&res)
    }

    /// `GET /api/me` with the session cookie.
    async fn me(&mut self) -> (u16, Value) {
        let res = self.get("/api/me").await;
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }
}

async fn count(app: &common::App, sql: &str) -> i64 {
    let pool = crate::uploads::pool(app).await;
    let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(&pool)
        .await
        .unwrap();
    pool.close().await;
    n
}

/// The id of the account `name`.
async fn account_id(app: &common::App, name: &str) -> board_core::AccountId {
    app.operator().admin().find_account(name).await.unwrap().id
}

/// Gives the account `name` the password [`PASSWORD`] and signs it in:
/// the session cookie's value.
async fn password_session(app: &common::App, name: &str) -> String {
    let id = account_id(app, name).await;
    app.operator()
        .admin()
        .set_password(&id, PASSWORD)
        .await
        .unwrap();
    let res = reqwest::Client::new()
        .post(format!("{}/api/session", app.base))
        .json(&json!({"name": name, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    set_cookie(&res, "board_session").unwrap().0
}

with_provider! {
    // What the sign-in page needs; a start goes to the provider with the
    // code flow, a state and a nonce of 256 bits, PKCE S256, and sets the
    // board_oidc cookie (HttpOnly, SameSite=Lax, 10 minutes).
    async fn the_sign_in_page_learns_the_provider_and_a_start_goes_there(backend) {
        let app = app(backend, &[]).await;
        let auth = app.call_as("", "GET", "/api/auth", None).await;
        assert_eq!(auth.status, 200);
        assert_eq!(auth.body, json!({"password": true, "mail": false, "oidc": {"name": "Mock ID"}}));
        let mut b = Browser::new(&app);
        let res = b.get("/api/auth/oidc/start?return=/board").await;
        assert_eq!(res.status().as_u16(), 302);
        let (state, attrs) = set_cookie(&res, "board_oidc").expect("the board_oidc cookie");
        assert!(attrs.contains("HttpOnly") && attrs.contains("SameSite=Lax") && attrs.contains("Max-Age=600"), "{attrs}");
        let url = reqwest::Url::parse(&location(&res)).unwrap();
        assert!(url.as_str().starts_with(&format!("{}/oauth2/authorize?", issuer())), "{url}");
        let q: std::collections::HashMap<String, String> = url.query_pairs().into_owned().collect();
        assert_eq!(q["response_type"], "code");
        assert_eq!(q["client_id"], "board-test");
        assert_eq!(q["code_challenge_method"], "S256");
        assert_eq!(q["state"], state);
        assert!(q["state"].len() >= 32 && q["nonce"].len() >= 32, "128 bits at least");
        assert_eq!(q["redirect_uri"], format!("{}/api/auth/oidc/callback", app.base));
        assert!(q["scope"].split(' ').any(|s| s == "openid"), "{}", q["scope"]);
    }

    // Case 6, then 3, then 2: an unknown identity is refused (and nothing
    // changes); an invitation creates the account from the claims, with its
    // membership, in one go; after that the identity signs it in.
    async fn an_invitation_brings_a_person_in_who_then_signs_in(backend) {
        let app = app(backend, &[]).await;
        let sub = person(json!({"preferred_username": "grace", "email": "grace@example.com"})).await;
        let accounts = count(&app, "SELECT COUNT(*) FROM accounts").await;

        let mut b = Browser::new(&app);
        assert_eq!(b.sign_in(&sub, "").await, "/?sso=NO_ACCOUNT");
        assert_eq!(b.session, None);
        assert_eq!(b.oidc, None, "the callback clears board_oidc");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM accounts").await, accounts, "nothing changed");

        let t = app.tenant.clone();
        let r = app.call("POST", "/api/invitations", Some(json!({"tenantId": t, "role": "MEMBER"}))).await;
        let code = r.body["code"].as_str().unwrap().to_string();
        assert_eq!(b.sign_in(&sub, &format!("?invite={code}&return=/w")).await, "/w");
        let (status, me) = b.me().await;
        assert_eq!(status, 200, "{me}");
        assert_eq!(me["name"], "grace");
        assert_eq!(me["hasPassword"], false);
        assert_eq!(me["workspaces"][0]["role"], "MEMBER");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM invitations WHERE used_at IS NOT NULL").await, 1);

        // The invitation served once: another person with it is refused.
        let other = person(json!({"preferred_username": "grace"})).await;
        let mut c = Browser::new(&app);
        assert_eq!(c.sign_in(&other, &format!("?invite={code}")).await, "/?sso=SSO_INVITATION");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM accounts").await, accounts + 1);

        // Case 2: the identity signs its account in, wherever it starts.
        let mut again = Browser::new(&app);
        assert_eq!(again.sign_in(&sub, "?return=//evil.example").await, "/", "only this site's paths");
        assert_eq!(again.me().await.1["name"], "grace");
    }

    // Case 5: with --oidc-create-accounts an unknown identity gets an
    // account without a workspace, its name made unique.
    async fn create_accounts_makes_a_new_account_with_a_unique_name(backend) {
        let app = app(backend, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
        let sub = person(json!({"preferred_username": "Admin", "email": "x@example.com"})).await;
        let mut b = Browser::new(&app);
        assert_eq!(b.sign_in(&sub, "?return=/x").await, "/x");
        let me = b.me().await.1;
        assert_eq!(me["name"], "Admin 2", "admin exists: {me}");
        assert_eq!(me["workspaces"], json!([]));
        let sub2 = person(json!({"email": "ada.l@example.com"})).await;
        let mut c = Browser::new(&app);
        c.sign_in(&sub2, "").await;
        assert_eq!(c.me().await.1["name"], "ada.l", "the e-mail's local part");
    }

    // Case 4: with --oidc-link-verified-email, a token whose address is
    // verified links the one account whose verified address it is; an
    // unverified claim, an unverified address or two owners link nothing.
    async fn a_verified_address_links_its_one_account(backend) {
        let app = app(backend, &[("BOARD_OIDC_LINK_VERIFIED_EMAIL", "true")]).await;
        let t = app.tenant.clone();
        let admin = app.operator().admin();
        for (name, email) in [("sam", "Sam@Example.com"), ("kim", "kim@example.com"), ("lee", "twin@example.com"), ("max", "twin@example.com")] {
            app.account_in(&t, name, "member").await;
            admin.set_email(&account_id(&app, name).await, email, true).await.unwrap();
        }
        let kim_id = account_id(&app, "kim").await;
        count(&app, &format!("UPDATE accounts SET email_verified_at = NULL WHERE id = '{kim_id}' RETURNING CAST(0 AS BIGINT)")).await;
        let refused = [
            json!({"email": "sam@example.com", "email_verified": false}),
            json!({"email": "sam@example.com"}),
            json!({"email": "kim@example.com", "email_verified": true}),
            json!({"email": "twin@example.com", "email_verified": true}),
            json!({"email": "nobody@example.com", "email_verified": true}),
        ];
        for claims in refused {
            let sub = person(claims.clone()).await;
            let mut b = Browser::new(&app);
            assert_eq!(b.sign_in(&sub, "").await, "/?sso=NO_ACCOUNT", "{claims}");
        }
        assert_eq!(count(&app, "SELECT COUNT(*) FROM identities").await, 0);

        // The address as the provider writes it, in another case: sam.
        let sub = person(json!({"preferred_username": "samuel", "email": "SAM@example.com", "email_verified": true})).await;
        let mut b = Browser::new(&app);
        assert_eq!(b.sign_in(&sub, "?return=/account").await, "/account");
        let me = b.me().await.1;
        assert_eq!(me["name"], "sam", "{me}");
        assert_eq!(me["identities"][0]["subject"], sub.as_str());
        // Linked now: it signs sam in by the identity, whatever the address.
        let mut again = Browser::new(&app);
        again.sign_in(&sub, "").await;
        assert_eq!(again.me().await.1["name"], "sam");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM identities").await, 1);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM accounts").await, 5, "nothing created");
    }

    // Case 1: a signed-in account links an identity; the same identity
    // cannot be linked to another account (IDENTITY_TAKEN, nothing moves);
    // an identity unlinks unless it is the last way in.
    async fn linking_takes_an_identity_once(backend) {
        let app = app(backend, &[]).await;
        let t = app.tenant.clone();
        app.account_in(&t, "sam", "member").await;
        let sub = person(json!({"preferred_username": "sam-at-idp"})).await;
        // sam signs in with a password, then links.
        let sam_id = account_id(&app, "sam").await;
        let mut b = Browser::new(&app);
        b.session = Some(password_session(&app, "sam").await);
        assert_eq!(b.sign_in(&sub, "?link=true&return=/account").await, "/account");
        assert_eq!(count(&app, &format!("SELECT COUNT(*) FROM identities WHERE account_id = '{sam_id}'")).await, 1);

        // admin, signed in, tries to link the same identity: refused, back
        // on the account page, which says why.
        let mut a = Browser::new(&app);
        a.session = Some(password_session(&app, "admin").await);
        assert_eq!(a.sign_in(&sub, "?link=true").await, "/?sso=IDENTITY_TAKEN");
        assert_eq!(count(&app, &format!("SELECT COUNT(*) FROM identities WHERE account_id = '{sam_id}'")).await, 1);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM identities").await, 1);

        // The identity now signs sam in from a fresh browser; "who am I"
        // lists it.
        let mut fresh = Browser::new(&app);
        fresh.sign_in(&sub, "").await;
        let me = fresh.me().await.1;
        assert_eq!(me["name"], "sam");
        assert_eq!(me["identities"].as_array().unwrap().len(), 1, "{me}");
        assert_eq!(me["identities"][0]["issuer"], issuer());
        assert_eq!(me["identities"][0]["subject"], sub.as_str());
        assert!(me["identities"][0]["linkedAt"].is_string());
        // Its sign-out names the provider's, with the ID token as a hint.
        let mut out = Browser::new(&app);
        out.sign_in(&sub, "").await;
        let res = out.http.delete(format!("{}/api/session", out.base))
            .header("cookie", out.cookies()).header("origin", &out.base).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
        let body: Value = res.json().await.unwrap();
        let logout = reqwest::Url::parse(body["logoutUrl"].as_str().expect("logoutUrl")).unwrap();
        assert!(logout.as_str().starts_with(&format!("{}/oauth2/end_session?", issuer())), "{logout}");
        let q: std::collections::HashMap<String, String> = logout.query_pairs().into_owned().collect();
        assert_eq!(q["post_logout_redirect_uri"], format!("{}/", app.base));
        assert_eq!(q["id_token_hint"].split('.').count(), 3, "a JWT");
        // A password session has none.
        let res = b.http.delete(format!("{}/api/session", b.base))
            .header("cookie", b.cookies()).header("origin", &b.base).send().await.unwrap();
        let body: Value = res.json().await.unwrap();
        assert_eq!(body, json!({"deleted": true}));

        // sam has a password: the identity unlinks.
        let id: String = {
            let pool = crate::uploads::pool(&app).await;
            let id = sqlx::query_scalar("SELECT id FROM identities").fetch_one(&pool).await.unwrap();
            pool.close().await;
            id
        };
        let res = fresh.http.delete(format!("{}/api/me/identities/{id}", fresh.base))
            .header("cookie", fresh.cookies()).header("origin", &fresh.base).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM identities").await, 0);
    }

    // An account made through the provider has no password: its one
    // identity is its last way in (422 LAST_SIGN_IN_METHOD).
    async fn the_last_way_in_stays(backend) {
        let app = app(backend, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
        let sub = person(json!({"preferred_username": "lone"})).await;
        let mut b = Browser::new(&app);
        b.sign_in(&sub, "").await;
        let id: String = {
            let pool = crate::uploads::pool(&app).await;
            let id = sqlx::query_scalar("SELECT id FROM identities").fetch_one(&pool).await.unwrap();
            pool.close().await;
            id
        };
        let res = b.http.delete(format!("{}/api/me/identities/{id}", b.base))
            .header("cookie", b.cookies()).header("origin", &b.base).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 422);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"], "LAST_SIGN_IN_METHOD");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM identities").await, 1);
    }

    // A state serves once, only in the browser that started it; an error
    // from the provider lands on the sign-in page.
    async fn a_state_serves_once_and_only_in_its_browser(backend) {
        let app = app(backend, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
        let sub = person(json!({"preferred_username": "eve"})).await;
        let mut b = Browser::new(&app);
        let authorize = b.start("").await;
        let callback = b.consent(&authorize, &sub).await;
        // Another browser (no cookie, or another start's) is refused.
        let mut other = Browser::new(&app);
        other.start("").await;
        let res = other.get(&callback).await;
        assert_eq!(location(&res), "/?sso=SSO_STATE");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM accounts WHERE name = 'eve'").await, 0);
        // Its own browser gets in, once.
        let keep = b.oidc.clone();
        let res = b.get(&callback).await;
        assert_eq!(location(&res), "/");
        assert!(b.session.is_some());
        b.oidc = keep;
        b.session = None;
        let res = b.get(&callback).await;
        assert_eq!(location(&res), "/?sso=SSO_STATE", "used");
        assert!(b.session.is_none());
        // The provider's error.
        let mut d = Browser::new(&app);
        let authorize = d.start("").await;
        let res = d.http.post(&authorize).form(&[("action", "deny")]).send().await.unwrap();
        let callback = location(&res);
        let res = d.get(&callback).await;
        assert_eq!(location(&res), "/?sso=SSO_PROVIDER_ERROR");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM accounts WHERE name = 'eve'").await, 1);
    }

    // The same state used twice at once, on one database: at most one
    // sign-in (the state's row is deleted by the one callback that gets it).
    async fn racing_callbacks_with_one_state_sign_in_at_most_once(backend) {
        let app = app(backend, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
        let sub = person(json!({"preferred_username": "racer"})).await;
        let mut b = Browser::new(&app);
        let authorize = b.start("").await;
        let callback = b.consent(&authorize, &sub).await;
        let cookie = b.cookies();
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(8));
        let tasks: Vec<_> = (0..8).map(|_| {
            let (http, url, cookie, barrier) = (b.http.clone(), callback.clone(), cookie.clone(), barrier.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                let res = http.get(url).header("cookie", cookie).send().await.unwrap();
                set_cookie(&res, "board_session").filter(|(v, _)| !v.is_empty()).is_some()
            })
        }).collect();
        let mut signed = 0;
        for t in tasks {
            signed += usize::from(t.await.unwrap());
        }
        assert_eq!(signed, 1, "exactly one callback signs in");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM tokens WHERE kind = 'session'").await, 1);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM accounts WHERE name = 'racer'").await, 1);
    }

    // --no-password-sign-in: the sign-in page says so, and a password
    // sign-in is 403 PASSWORD_SIGN_IN_DISABLED.
    async fn password_sign_in_can_be_turned_off(backend) {
        let app = app(backend, &[("BOARD_PASSWORD_SIGN_IN", "off")]).await;
        let auth = app.call_as("", "GET", "/api/auth", None).await;
        assert_eq!(auth.body["password"], false);
        let r = app.call_as("", "POST", "/api/session", Some(json!({"name": "admin", "password": PASSWORD}))).await;
        assert_eq!((r.status, r.body["error"].as_str()), (403, Some("PASSWORD_SIGN_IN_DISABLED")));
    }
}

testkit::on_both_backends! {
    // A provider out of reach at start: the server starts all the same,
    // password sign-in works, and a start is 503 PROVIDER_UNAVAILABLE.
    async fn a_provider_out_of_reach_leaves_passwords_working(backend) {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let issuer = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        let app = common::spawn_app_with(backend, &[
            ("BOARD_OIDC_ISSUER", issuer.as_str()), ("BOARD_OIDC_CLIENT_ID", "board-test"),
        ]).await;
        let auth = app.call_as("", "GET", "/api/auth", None).await;
        assert_eq!(auth.body["oidc"]["name"], "Single sign-on");
        let res = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
            .get(format!("{}/api/auth/oidc/start", app.base)).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 503);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"], "PROVIDER_UNAVAILABLE");
        // A browser's page load lands on the sign-in page, which says why.
        let res = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
            .get(format!("{}/api/auth/oidc/start", app.base))
            .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8").send().await.unwrap();
        assert_eq!(res.status().as_u16(), 302);
        assert_eq!(location(&res), "/?sso=PROVIDER_UNAVAILABLE");
        password_session(&app, "admin").await;
    }
}

with_provider! {
    // A provider out of reach at start comes back by itself: discovery is
    // tried again in the background, and sign-in then works.
    async fn single_sign_on_comes_back_with_its_provider(backend) {
        let relay = testkit::mail::Relay::to(issuer().trim_start_matches("http://").to_string(), false).await;
        let through = relay.url.replace("smtp://", "http://");
        let app = common::spawn_app_with(backend, &[
            ("BOARD_OIDC_ISSUER", through.as_str()), ("BOARD_OIDC_CLIENT_ID", "board-test"),
            ("BOARD_OIDC_CLIENT_SECRET", "board-test-secret"), ("BOARD_OIDC_CREATE_ACCOUNTS", "true"),
        ]).await;
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let start = || http.get(format!("{}/api/auth/oidc/start", app.base)).send();
        assert_eq!(start().await.unwrap().status().as_u16(), 503);
        relay.set_up(true);
        let began = std::time::Instant::now();
        while start().await.unwrap().status().as_u16() != 302 {
            assert!(began.elapsed() < Duration::from_secs(30), "single sign-on did not come back");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let sub = person(json!({"preferred_username": "back"})).await;
        let mut b = Browser::new(&app);
        assert_eq!(b.sign_in(&sub, "?return=/account").await, "/account");
        assert_eq!(b.me().await.1["name"], "back");
    }
}

// The ID token refused by each of its checks; ES256, client_secret_post and
// a new signing key, each with a provider of its own.
mod tokens;

// Expired states, foreign returns, names, dead invitations, sessions, tokens.
mod more;
