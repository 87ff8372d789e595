//! More of single sign-on (api.md §27): an expired state, `return` values
//! that are not this site's paths, the account name's fallbacks, an
//! invitation that no longer serves, the session a sign-in opens, and
//! bearer tokens with password sign-in off.

use super::*;

/// `?return=<value>`, the value percent-encoded.
fn return_query(value: &str) -> String {
    let mut url = reqwest::Url::parse("http://x/").unwrap();
    url.query_pairs_mut().append_pair("return", value);
    format!("?{}", url.query().unwrap())
}

with_provider! {
    // A state kept past its 10 minutes is refused (SSO_STATE), even in its
    // own browser with the provider's consent: no session, no account.
    async fn an_expired_state_is_refused(backend) {
        let app = app(backend, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
        let sub = person(json!({"preferred_username": "late"})).await;
        let mut b = Browser::new(&app);
        let authorize = b.start("").await;
        let callback = b.consent(&authorize, &sub).await;
        let past = "UPDATE sso_states SET expires_at = '2000-01-01T00:00:00.000Z' RETURNING CAST(0 AS BIGINT)";
        count(&app, past).await;
        let res = b.get(&callback).await;
        assert_eq!(location(&res), "/?sso=SSO_STATE");
        assert_eq!(b.session, None, "no session");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM accounts WHERE name = 'late'").await, 0);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM tokens WHERE kind = 'session'").await, 0);
    }

    // `return` is kept only when it is a path of this site (one leading
    // `/`, not `//` or `/\`, printable ASCII); anything else is `/`, and the
    // sign-in still succeeds.
    async fn a_return_that_is_not_this_sites_path_becomes_the_root(backend) {
        let app = app(backend, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
        let sub = person(json!({"preferred_username": "wanderer"})).await;
        let mut b = Browser::new(&app);
        assert_eq!(b.sign_in(&sub, &return_query("/w/x?tab=1#top")).await, "/w/x?tab=1#top", "a path is kept");
        for value in ["/\\evil.example", "https://evil.example/x", "http:/x", "evil.example", "/a\nb", "/a\u{7f}b", "/caf\u{e9}"] {
            let mut b = Browser::new(&app);
            assert_eq!(b.sign_in(&sub, &return_query(value)).await, "/", "{value:?}");
            assert_eq!(b.me().await.1["name"], "wanderer", "{value:?} signs in");
        }
    }

    // A new account is named from `preferred_username`, else `name`, else
    // the e-mail's local part.
    async fn the_account_name_falls_back_to_name_then_the_email(backend) {
        let app = app(backend, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
        for (claims, name) in [
            (json!({"preferred_username": "ada", "name": "Ada Lovelace", "email": "al@example.com"}), "ada"),
            (json!({"name": "Grace Hopper", "email": "gh@example.com"}), "Grace Hopper"),
            (json!({"email": "linus.t@example.com"}), "linus.t"),
        ] {
            let sub = person(claims.clone()).await;
            let mut b = Browser::new(&app);
            assert_eq!(b.sign_in(&sub, "").await, "/", "{claims}");
            assert_eq!(b.me().await.1["name"], name, "{claims}");
        }
    }

    // An invitation that no longer serves (revoked, or expired) is refused
    // through the provider with SSO_INVITATION, and nothing changes.
    async fn a_revoked_or_expired_invitation_is_refused(backend) {
        let app = app(backend, &[]).await;
        let t = app.tenant.clone();
        let invite = || app.call("POST", "/api/invitations", Some(json!({"tenantId": t, "role": "MEMBER"})));
        let revoked = invite().await;
        assert_eq!(revoked.status, 201, "{:?}", revoked.body);
        let r = app.call("DELETE", &format!("/api/invitations/{}", revoked.body["id"].as_str().unwrap()), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let expired = invite().await;
        let id = expired.body["id"].as_str().unwrap();
        let past = format!("UPDATE invitations SET expires_at = '2000-01-01T00:00:00.000Z' WHERE id = '{id}' RETURNING CAST(0 AS BIGINT)");
        count(&app, &past).await;
        let accounts = count(&app, "SELECT COUNT(*) FROM accounts").await;
        for (what, res) in [("revoked", revoked), ("expired", expired)] {
            let code = res.body["code"].as_str().unwrap();
            let sub = person(json!({"preferred_username": format!("new-{what}")})).await;
            let mut b = Browser::new(&app);
            assert_eq!(b.sign_in(&sub, &format!("?invite={code}")).await, "/?sso=SSO_INVITATION", "{what}");
            assert_eq!(b.session, None, "{what}");
        }
        assert_eq!(count(&app, "SELECT COUNT(*) FROM accounts").await, accounts, "nothing changed");
        assert_eq!(count(&app, "SELECT COUNT(*) FROM identities").await, 0);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM invitations WHERE used_at IS NOT NULL").await, 0);
    }

    // A sign-in through the provider opens a session (§23): GET /api/tokens
    // lists it as kind `session`, the current credential, with an expiry.
    async fn a_session_made_through_sso_is_listed_as_a_session(backend) {
        let app = app(backend, &[("BOARD_OIDC_CREATE_ACCOUNTS", "true")]).await;
        let sub = person(json!({"preferred_username": "lister"})).await;
        let mut b = Browser::new(&app);
        assert_eq!(b.sign_in(&sub, "").await, "/");
        let session = b.session.clone().expect("a session cookie");
        let res = b.get("/api/tokens").await;
        assert_eq!(res.status().as_u16(), 200);
        let list: Value = res.json().await.unwrap();
        assert!(!list.to_string().contains(&session), "never a secret");
        let tokens = list.as_array().unwrap();
        assert_eq!(tokens.len(), 1, "{list}");
        assert_eq!(tokens[0]["kind"], "session", "{list}");
        assert_eq!(tokens[0]["current"], true, "{list}");
        assert!(tokens[0]["id"].is_string() && tokens[0]["createdAt"].is_string() && tokens[0]["expiresAt"].is_string(), "{list}");
    }

    // --no-password-sign-in refuses passwords only: a bearer token (the
    // first run's) still answers.
    async fn bearer_tokens_work_with_password_sign_in_off(backend) {
        let app = app(backend, &[("BOARD_PASSWORD_SIGN_IN", "off")]).await;
        let r = app.call_as("", "POST", "/api/session", Some(json!({"name": "admin", "password": PASSWORD}))).await;
        assert_eq!(r.status, 403, "password sign-in is off");
        let me = app.call("GET", "/api/me", None).await;
        assert_eq!(me.status, 200, "{:?}", me.body);
        assert_eq!(me.body["name"], "admin");
    }
}
