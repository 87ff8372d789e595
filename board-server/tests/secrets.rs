//! People as server processes see them (api.md §23): no password, token or
//! code in a log line, an event or an error message (a session of sign-ins,
//! invitations, a password change and resets, then the log, the events and
//! every answer searched for each secret it saw); and the sign-in throttle
//! holding across two processes on one database.

use serde_json::{json, Value};
use sqlx::Row;
use testkit::process::{first_run, log_path, start_server};
use testkit::{on_both_backends, TestDb};

const SERVER: &str = env!("CARGO_BIN_EXE_board-server");

const PASSWORD: &str = "correct horse battery staple";
const WRONG: &str = "wrong horse battery staple";
const ADA: &str = "plaid unicorn orbits the lighthouse";
const CHANGED: &str = "seven quiet otters paddle upstream";
const WEAK: &str = "ada-12345";

/// What a request answered: status, body text, and its session cookie.
struct Answer {
    status: u16,
    text: String,
    session: Option<String>,
}

async fn send(req: reqwest::RequestBuilder) -> Answer {
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let session = res.headers().get("set-cookie").map(|v| {
        let v = v.to_str().unwrap();
        v.split(';')
            .next()
            .unwrap()
            .trim_start_matches("board_session=")
            .to_string()
    });
    Answer {
        status,
        text: res.text().await.unwrap(),
        session,
    }
}

fn field(text: &str, key: &str) -> String {
    let v: Value = serde_json::from_str(text).unwrap();
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {text}"))
        .to_string()
}

on_both_backends! {
    async fn no_secret_reaches_a_log_an_event_or_an_error(backend) {
        let db = TestDb::new(backend).await;
        let env = [("BOARD_LOG", "info"), ("BOARD_TRUST_PROXY", "true")];
        let server = start_server(SERVER, &db, &env).await;
        let (base, http) = (server.base.clone(), reqwest::Client::new());
        let (token, tenant) = first_run(&server.lines).expect("first run");
        let reset = server.lines.iter().find_map(|l| l.split_once("/reset#").map(|(_, c)| c.to_string())).expect("reset link");
        let mut secrets = vec![PASSWORD, WRONG, ADA, CHANGED, WEAK].into_iter().map(String::from).collect::<Vec<_>>();
        secrets.extend([token.clone(), reset.clone()]);
        let mut answers = Vec::new();
        let post = |path: &str, body: Value| http.post(format!("{base}{path}")).header("x-forwarded-for", "10.9.0.1").json(&body);

        let a = send(post("/api/password-reset", json!({"code": reset, "password": WEAK}))).await;
        assert_eq!(a.status, 422, "{}", a.text);
        answers.push(a);
        let a = send(post("/api/password-reset", json!({"code": reset, "password": PASSWORD}))).await;
        assert_eq!(a.status, 200, "{}", a.text);
        secrets.extend(a.session.clone());
        answers.push(a);
        for (name, password) in [("admin", WRONG), ("nobody", PASSWORD), ("admin", PASSWORD)] {
            let a = send(post("/api/session", json!({"name": name, "password": password}))).await;
            secrets.extend(a.session.clone());
            answers.push(a);
        }
        let session = answers.last().unwrap().session.clone().expect("signed in");

        let a = send(post("/api/invitations", json!({"tenantId": tenant, "role": "MEMBER"})).bearer_auth(&token)).await;
        assert_eq!(a.status, 201, "{}", a.text);
        let code = field(&a.text, "code");
        secrets.push(code.clone());
        let a = send(post("/api/invitations/accept", json!({"code": "0".repeat(64), "name": "ada", "password": ADA}))).await;
        assert_eq!(a.status, 404);
        answers.push(a);
        let a = send(post("/api/invitations/accept", json!({"code": code, "name": "ada", "password": WEAK}))).await;
        assert_eq!(a.status, 422);
        answers.push(a);
        let a = send(post("/api/invitations/accept", json!({"code": code, "name": "ada", "password": ADA}))).await;
        assert_eq!(a.status, 200, "{}", a.text);
        secrets.extend(a.session.clone());
        answers.push(a);

        let cookie = format!("board_session={session}");
        for current in [WRONG, PASSWORD] {
            let body = json!({"password": {"current": current, "new": CHANGED}});
            let a = send(http.patch(format!("{base}/api/me")).header("cookie", &cookie).json(&body)).await;
            answers.push(a);
        }
        assert_eq!(answers.last().unwrap().status, 200, "{}", answers.last().unwrap().text);
        let a = send(post("/api/tokens", json!({"label": "CI"})).bearer_auth(&token)).await;
        secrets.push(field(&a.text, "token"));

        drop(server);
        let log = std::fs::read_to_string(log_path(&db)).unwrap();
        assert!(log.contains("signed in") && log.contains("admin") && log.contains("10.9.0.1"), "{log}");
        assert!(log.contains("sign-in refused"), "failures are logged: {log}");
        let board = db.open().await;
        drop(board);
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&db.url).await.unwrap();
        let events: Vec<String> = sqlx::query("SELECT data FROM events")
            .fetch_all(&pool)
            .await
            .unwrap()
            .iter()
            .map(|r| r.get::<String, _>("data"))
            .collect();
        pool.close().await;
        assert!(events.iter().any(|e| e.contains("member.added")), "{events:?}");
        for secret in &secrets {
            assert!(!log.contains(secret.as_str()), "the log holds a secret");
            assert!(!events.iter().any(|e| e.contains(secret.as_str())), "an event holds a secret");
            for a in &answers {
                assert!(!a.text.contains(secret.as_str()), "an answer holds a secret: {}", a.text);
            }
        }
    }
}

on_both_backends! {
    // api.md §23: the throttle's counts hold across server processes on one
    // database: five failures of one pair, alternating between two processes,
    // and the sixth attempt is refused by either.
    async fn the_throttle_holds_across_two_server_processes(backend) {
        let db = TestDb::new(backend).await;
        let env = [("BOARD_TRUST_PROXY", "true")];
        let one = start_server(SERVER, &db, &env).await;
        let two = start_server(SERVER, &db, &env).await;
        let reset = one.lines.iter().find_map(|l| l.split_once("/reset#").map(|(_, c)| c.to_string())).expect("reset link");
        let http = reqwest::Client::new();
        let post = |base: &str, path: &str, body: Value| http.post(format!("{base}{path}")).header("x-forwarded-for", "10.8.0.1").json(&body);
        let a = send(post(&two.base, "/api/password-reset", json!({"code": reset, "password": PASSWORD}))).await;
        assert_eq!(a.status, 200, "{}", a.text);
        let bases = [one.base.clone(), two.base.clone()];
        for i in 0..5 {
            let a = send(post(&bases[i % 2], "/api/session", json!({"name": "admin", "password": WRONG}))).await;
            assert_eq!(a.status, 401, "failure {i}: {}", a.text);
        }
        for base in &bases {
            let a = send(post(base, "/api/session", json!({"name": "admin", "password": PASSWORD}))).await;
            assert_eq!(a.status, 429, "{base}: {}", a.text);
        }
    }
}

on_both_backends! {
    // A name a client chose is logged quoted and escaped: a newline in it
    // starts no line of its own; a long one is logged cut to 100 characters.
    async fn a_client_chosen_name_starts_no_log_line(backend) {
        let db = TestDb::new(backend).await;
        let env = [("BOARD_LOG", "info"), ("BOARD_TRUST_PROXY", "true")];
        let server = start_server(SERVER, &db, &env).await;
        let http = reqwest::Client::new();
        let forged = "mallory\nFORGED signed in account=admin";
        for name in [forged.to_string(), "z".repeat(1_000_000)] {
            let a = send(http.post(format!("{}/api/session", server.base)).header("x-forwarded-for", "10.9.1.1").json(&json!({"name": name, "password": WRONG}))).await;
            assert_eq!(a.status, 401, "{}", a.text);
        }
        drop(server);
        let log = std::fs::read_to_string(log_path(&db)).unwrap();
        assert!(log.contains("mallory"), "{log}");
        assert!(!log.lines().any(|l| l.trim_start().starts_with("FORGED")), "{log}");
        assert!(log.contains(&"z".repeat(100)) && !log.contains(&"z".repeat(101)), "cut to 100");
    }
}
