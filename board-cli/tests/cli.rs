//! The `board` CLI end to end (the binary as a process), on the same database
//! a server running in the test's process uses.

use std::time::{Duration, SystemTime};

use serde_json::{json, Value};
use testkit::process::Cli;
use testkit::{
    self as common, on_both_backends, on_both_backends_with_mail, on_the_object_store, App, TestDb,
};

/// The `board` binary cargo built for these tests.
const BOARD: &str = env!("CARGO_BIN_EXE_board");

/// Runs `board` on `db`.
async fn cli(db: &TestDb, args: &[&str]) -> Cli {
    testkit::process::cli(BOARD, db, args).await
}

/// `app.cli(args)`: runs `board` on the database of a server running in this
/// process.
trait RunCli {
    async fn cli(&self, args: &[&str]) -> Cli;
}

impl RunCli for App {
    async fn cli(&self, args: &[&str]) -> Cli {
        cli(&self.db, args).await
    }
}

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// A new folder of its own under the system's temporary folder.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("board-cli-{}", cuid2::create_id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

on_both_backends! {
    async fn a_closed_stdout_ends_quietly(backend) {
        let app = common::spawn_app(backend).await;
        // The reader is gone before the first line (`board … | head -0`).
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = tokio::process::Command::new(BOARD)
            .args(["workspace", "list"])
            .env("BOARD_DATABASE_URL", &app.db.url)
            .env("BOARD_FILES_DIR", app.db.files_dir())
            .env_remove("BOARD_FILES_URL")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::from(writer))
            .stderr(std::process::Stdio::piped())
            .output()
            .await
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{:?}: {stderr}", out.status);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr, "", "quietly");
    }

    async fn a_workspace_is_created_with_its_admin_or_a_hint(backend) {
        let app = common::spawn_app(backend).await;
        app.cli(&["account", "create", "wanda"]).await.ok();
        let made = app.cli(&["--json", "workspace", "create", "Team W", "--admin", "wanda"]).await;
        assert!(!made.stderr.contains("hint"), "{}", made.stderr);
        let ws = made.ok();
        let members = app.cli(&["--json", "member", "list", "--workspace", "Team W"]).await.ok();
        let members = members.as_array().unwrap();
        assert_eq!(members.len(), 1, "{members:?}");
        assert_eq!(members[0]["role"], "ADMIN");
        assert_eq!(members[0]["tenantId"], ws["id"]);
        assert_eq!(members[0]["accountName"], "wanda");
        // An unknown account creates nothing.
        let ghost = app.cli(&["workspace", "create", "Ghost", "--admin", "nobody"]).await;
        assert!(!ghost.success);
        assert!(ghost.stderr.contains("nobody"), "{}", ghost.stderr);
        let all = app.cli(&["--json", "workspace", "list"]).await.ok();
        assert!(!all.to_string().contains("Ghost"), "{all}");
        // Without --admin, a hint on standard error; standard output as before.
        let lonely = app.cli(&["workspace", "create", "Lonely"]).await;
        assert!(lonely.success);
        assert!(lonely.stderr.contains("no member") && lonely.stderr.contains("--admin"), "{}", lonely.stderr);
        assert!(lonely.stdout.starts_with("created workspace \"Lonely\""), "{}", lonely.stdout);
    }

    async fn admin_commands_print_json_and_tables(backend) {
        let app = common::spawn_app(backend).await;
        let init = app.cli(&["--json", "init"]).await.ok();
        assert_eq!(init["migrated"], true);

        let ws = app.cli(&["--json", "workspace", "create", "Acme"]).await.ok();
        let ws_id = ws["id"].as_str().unwrap().to_string();
        assert_eq!(ws["name"], "Acme");
        assert_eq!(ws_id.len(), 24);
        // A new workspace is born with To do / Doing / Done and takes cards at once.
        let card = app.cli(&["--json", "card", "create", "--workspace", "Acme", "t"]).await.ok();
        assert_eq!(card["tenantId"], ws_id.as_str());
        let cols = app.cli(&["--json", "columns", "list", "--workspace", "Acme"]).await.ok();
        let shape: Vec<_> = cols
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["name"].clone(), c["accent"].clone(), c["done"].clone()))
            .collect();
        assert_eq!(shape, [
            (json!("To do"), json!("slate"), json!(false)),
            (json!("Doing"), json!("blue"), json!(false)),
            (json!("Done"), json!("green"), json!(true)),
        ]);
        assert_eq!(card["columnId"], cols[0]["id"], "the card is in To do");
        let p = app.cli(&["--json", "project", "create", "--workspace", "Acme", "Web"]).await.ok();
        assert_eq!(p["tenantId"], ws_id.as_str());
        assert_eq!(p["name"], "Web");
        let acc = app.cli(&["--json", "account", "create", "erin"]).await.ok();
        assert_eq!(acc["name"], "erin");
        let m = app
            .cli(&["--json", "member", "add", "--workspace", &ws_id, "--account", "erin", "--role", "admin"])
            .await
            .ok();
        assert_eq!(m["role"], "ADMIN");
        let t = app.cli(&["--json", "token", "create", "--account", "erin"]).await.ok();
        let token = t["token"].as_str().unwrap().to_string();

        // The token works against the running server at once.
        let r = app.call_as(&token, "GET", &format!("/api/settings?tenant={ws_id}"), None).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body, json!({"tenantId": ws_id, "columnScope": "TENANT", "columnManagement": true, "allowCrossProjectLinks": false, "wipLimits": "SOFT"}));

        for (key, value, field, expected) in [
            ("column-scope", "project", "columnScope", json!("PROJECT")),
            ("column-management", "off", "columnManagement", json!(false)),
            ("allow-cross-project-links", "on", "allowCrossProjectLinks", json!(true)),
        ] {
            let s = app.cli(&["--json", "settings", "set", "--workspace", &ws_id, key, value]).await.ok();
            assert_eq!(s[field], expected, "{key}");
        }
        let r = app.call_as(&token, "GET", &format!("/api/settings?tenant={ws_id}"), None).await;
        assert_eq!(r.body["columnManagement"], false);

        // Cards: create in Default, move, read the history as a table and JSON.
        let cols = app.columns().await;
        let card = app.cli(&["--json", "card", "create", "--workspace", &app.tenant, "From the CLI"]).await.ok();
        let card_id = card["id"].as_str().unwrap().to_string();
        assert_eq!(card["columnId"], cols[0]["id"]);
        let moved = app
            .cli(&["--json", "card", "move", &card_id, "--to", cols[1]["id"].as_str().unwrap()])
            .await
            .ok();
        assert_eq!(moved["columnId"], cols[1]["id"]);
        let h = app.cli(&["--json", "history", &card_id]).await.ok();
        assert_eq!(h.as_array().unwrap().len(), 2);
        assert_eq!(h[1]["fromName"], "To do");
        assert_eq!(h[1]["toName"], "Doing");
        let table = app.cli(&["history", &card_id]).await;
        assert!(table.success);
        assert!(table.stdout.contains("Doing") && table.stdout.contains("from"), "{}", table.stdout);
        // Who moved it: `board` for the CLI, the account's name for a move over HTTP.
        assert_eq!(h[1]["actorId"], Value::Null);
        let by = |out: &str| -> Vec<String> {
            out.lines()
                .filter(|l| l.starts_with('│') && !l.contains("when"))
                .filter_map(|l| l.split(['│', '┆']).map(str::trim).rfind(|c| !c.is_empty()))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(by(&table.stdout), ["board", "board"], "{}", table.stdout);
        let r = app.call("PATCH", &format!("/api/cards/{card_id}"), Some(json!({"columnId": cols[1]["id"]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = app.call("PATCH", &format!("/api/cards/{card_id}"), Some(json!({"columnId": cols[0]["id"]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let me = app.operator().admin().list_accounts().await.unwrap().remove(0).name;
        let table = app.cli(&["history", &card_id]).await;
        assert_eq!(by(&table.stdout), ["board", "board", me.as_str()], "{}", table.stdout);

        let list = app.cli(&["columns", "list", "--workspace", &app.tenant]).await;
        assert!(list.success);
        for word in ["name", "accent", "position", "done", "id", "To do", "green"] {
            assert!(list.stdout.contains(word), "{word} missing from {}", list.stdout);
        }
        let list = app.cli(&["--json", "columns", "list", "--workspace", &app.tenant]).await.ok();
        assert_eq!(list.as_array().unwrap().len(), 3);

        // The server sees the CLI's move.
        let r = app.call("GET", &format!("/api/cards/{card_id}/history"), None).await;
        assert_eq!(r.body.as_array().unwrap().len(), 3);
    }

    async fn errors_are_one_line_with_a_non_zero_exit(backend) {
        let app = common::spawn_app(backend).await;
        let cases: Vec<Vec<&str>> = vec![
            vec!["card", "move", "nope", "--to", "nope"],
            vec!["history", "zzzzzzzzzzzzzzzzzzzzzzzz"],
            vec!["account", "create", "admin"],
            vec!["member", "add", "--workspace", "Nowhere", "--account", "admin", "--role", "admin"],
            vec!["card", "create", "--workspace", "Default", "   "],
            vec!["token", "revoke", "not-a-token"],
            vec!["token", "create", "--account", "ghost"],
        ];
        for args in cases {
            let out = app.cli(&args).await;
            assert!(!out.success, "{args:?} succeeded");
            assert_eq!(out.stderr.trim_end().lines().count(), 1, "{args:?}: {:?}", out.stderr);
            assert!(out.stderr.starts_with("board: "), "{:?}", out.stderr);
            assert!(out.stdout.is_empty(), "{args:?} printed {:?}", out.stdout);
        }
        // Nothing was created by the refusals.
        let board = app.board().await;
        assert_eq!(board.admin().list_workspaces().await.unwrap().len(), 1);
        let view = board.board(&board_core::Actor::Operator, &board_core::SetQuery::from_query(Some(&app.tenant), None).unwrap()).await.unwrap();
        assert!(view.columns.iter().all(|c| c.cards.is_empty()));
    }

    async fn names_resolve_and_refusals_say_what_exists(backend) {
        let app = common::spawn_app(backend).await;
        let fails = |out: Cli, words: &[&str]| {
            assert!(!out.success, "succeeded: {}", out.stdout);
            assert_eq!(out.stderr.trim_end().lines().count(), 1, "{:?}", out.stderr);
            for w in words {
                assert!(out.stderr.contains(w), "{w:?} missing from {:?}", out.stderr);
            }
        };
        // Workspaces: unique names, found in any letter case, renamed.
        let acme = app.cli(&["--json", "workspace", "create", "Acme"]).await.ok();
        fails(app.cli(&["workspace", "create", "Acme"]).await, &["already exists", "CONFLICT"]);
        fails(app.cli(&["columns", "list", "--workspace", "Acne"]).await, &["no workspace is named \"Acne\"", "Default, Acme"]);
        let p = app.cli(&["--json", "project", "create", "--workspace", "acme", "Web"]).await.ok();
        assert_eq!(p["tenantId"], acme["id"]);
        fails(app.cli(&["project", "create", "--workspace", "Acme", "Web"]).await, &["already exists"]);
        app.cli(&["project", "create", "--workspace", "Acme", "web"]).await.ok();
        fails(app.cli(&["card", "create", "--workspace", "Acme", "--project", "WEB", "x"]).await, &["several projects are named \"WEB\"", "Web (", "web ("]);
        let projects = app.cli(&["--json", "project", "list", "--workspace", "Acme"]).await.ok();
        assert_eq!(projects.as_array().unwrap().len(), 2);

        // Cards and columns by name; the output names the column.
        let card = app
            .cli(&["--json", "card", "create", "--workspace", "Acme", "--project", "Web", "--column", "Doing", "Plan"])
            .await
            .ok();
        assert_eq!(card["columnName"], "Doing");
        let card_id = card["id"].as_str().unwrap().to_string();
        let moved = app.cli(&["--json", "card", "move", &card_id, "--to", "done"]).await.ok();
        assert_eq!(moved["columnName"], "Done");
        let text = app.cli(&["card", "move", &card_id, "--to", "To do"]).await;
        assert!(text.stdout.contains("\"To do\""), "{}", text.stdout);
        fails(app.cli(&["card", "move", &card_id, "--to", "Nope"]).await, &["no column is named \"Nope\"", "To do, Doing, Done"]);
        let review = app.cli(&["--json", "column", "create", "--workspace", "Acme", "Review", "--color", "violet"]).await.ok();
        assert_eq!((review["accent"].as_str(), review["position"].as_i64()), (Some("violet"), Some(3)));
        app.cli(&["column", "create", "--workspace", "Acme", "Review"]).await.ok();
        fails(app.cli(&["card", "move", &card_id, "--to", "Review"]).await, &["several columns are named \"Review\"", review["id"].as_str().unwrap()]);
        fails(app.cli(&["column", "create", "--workspace", "Acme", "Bad", "--color", "#ff0000"]).await, &["color"]);
        let renamed = app.cli(&["--json", "column", "rename", review["id"].as_str().unwrap(), "Checked"]).await.ok();
        assert_eq!(renamed["name"], "Checked");
        let set = app.cli(&["--json", "column", "set", "Checked", "--workspace", "Acme", "--color", "teal", "--done"]).await.ok();
        assert_eq!((set["accent"].as_str(), set["done"].as_bool()), (Some("teal"), Some(true)));
        fails(app.cli(&["column", "rename", "Checked", "Other"]).await, &["give its workspace"]);

        // Listing, showing, renaming and deleting cards.
        let listed = app.cli(&["--json", "card", "list", "--workspace", "Acme", "--column", "To do"]).await.ok();
        assert_eq!(listed.as_array().unwrap().len(), 1);
        let shown = app.cli(&["--json", "card", "show", &card_id]).await.ok();
        assert_eq!((shown["title"].as_str(), shown["columnName"].as_str()), (Some("Plan"), Some("To do")));
        let r = app.cli(&["--json", "card", "rename", &card_id, "Plan B"]).await.ok();
        assert_eq!(r["title"], "Plan B");
        let table = app.cli(&["card", "list", "--workspace", "Acme"]).await;
        assert!(table.stdout.contains("Plan B") && table.stdout.contains("To do"), "{}", table.stdout);
        let doomed = app.cli(&["--json", "card", "create", "--workspace", "Acme", "Doomed"]).await.ok();
        let doomed = doomed["id"].as_str().unwrap();
        let gone = app.cli(&["card", "delete", doomed]).await;
        assert!(gone.success && gone.stdout.contains("Doomed"), "{}", gone.stdout);
        fails(app.cli(&["card", "show", doomed]).await, &["card not found"]);

        // Column deletion: both ways named when none is given, counts reported.
        fails(app.cli(&["column", "delete", "To do", "--workspace", "Acme"]).await, &["--move-to", "--delete-cards"]);
        let d = app.cli(&["--json", "column", "delete", "To do", "--workspace", "Acme", "--move-to", "Doing"]).await.ok();
        assert_eq!((d["cardsMoved"].as_u64(), d["cardsDeleted"].as_u64()), (Some(1), Some(0)));
        let d = app
            .cli(&["column", "delete", "Doing", "--workspace", "Acme", "--delete-cards", "--confirm", "APAGAR CARDS"])
            .await;
        assert!(d.stdout.contains("0 cards moved, 1 card deleted"), "{}", d.stdout);
        let order = app.cli(&["--json", "columns", "reorder", "--workspace", "Acme", "Review", "Checked"]).await.ok();
        let names: Vec<_> = order["columns"].as_array().unwrap().iter().map(|c| c["name"].clone()).collect();
        assert_eq!(names, vec![json!("Done"), json!("Review"), json!("Checked")]);

        // Accounts, members, tokens.
        app.cli(&["account", "create", "erin"]).await.ok();
        let accounts = app.cli(&["--json", "account", "list"]).await.ok();
        let names: Vec<_> = accounts.as_array().unwrap().iter().map(|a| a["name"].clone()).collect();
        assert_eq!(names, vec![json!("admin"), json!("erin")]);
        app.cli(&["member", "add", "--workspace", "Acme", "--account", "erin", "--role", "viewer"]).await.ok();
        let members = app.cli(&["--json", "member", "list", "--workspace", "Acme"]).await.ok();
        assert_eq!(members, json!([{"tenantId": acme["id"], "workspaceName": "Acme", "accountId": accounts[1]["id"], "accountName": "erin", "role": "VIEWER"}]));
        let issued = app.cli(&["token", "create", "--account", "erin", "--expires-in", "7d"]).await;
        assert!(issued.success);
        assert!(issued.stderr.contains("shown once"), "{}", issued.stderr);
        let secret = issued.stdout.lines().next().unwrap().to_string();
        assert!(secret.starts_with("brd_"), "{}", issued.stdout);
        assert!(issued.stdout.contains("expires 20"), "{}", issued.stdout);
        let tokens = app.cli(&["token", "list", "--account", "erin"]).await;
        assert!(tokens.success);
        let token_id = secret.split('_').nth(1).unwrap();
        assert!(tokens.stdout.contains(token_id), "{}", tokens.stdout);
        assert!(!tokens.stdout.contains(secret.rsplit('_').next().unwrap()), "a secret is never listed");
        let json_tokens = app.cli(&["--json", "token", "list"]).await.ok();
        assert_eq!(json_tokens.as_array().unwrap().len(), 2, "admin's and erin's");
        app.cli(&["token", "revoke", token_id]).await.ok();
        let t = app.cli(&["--json", "token", "list", "--account", "erin"]).await.ok();
        assert!(t[0]["revokedAt"].is_string(), "{t}");
        app.cli(&["member", "remove", "--workspace", "Acme", "--account", "erin"]).await.ok();
        fails(app.cli(&["member", "remove", "--workspace", "Acme", "--account", "erin"]).await, &["not found"]);
        assert_eq!(app.cli(&["--json", "member", "list", "--workspace", "Acme"]).await.ok(), json!([]));

        // Renaming a workspace; a taken name is refused.
        fails(app.cli(&["workspace", "rename", "Acme", "Default"]).await, &["already exists"]);
        let w = app.cli(&["--json", "workspace", "rename", "Acme", "Acme Inc"]).await.ok();
        assert_eq!(w, json!({"id": acme["id"], "name": "Acme Inc"}));
        let all = app.cli(&["--json", "workspace", "list"]).await.ok();
        let names: Vec<_> = all.as_array().unwrap().iter().map(|w| w["name"].clone()).collect();
        assert_eq!(names, vec![json!("Default"), json!("Acme Inc")]);
        // A second workspace that differs only in letter case makes the case-blind name ambiguous.
        app.cli(&["workspace", "create", "acme inc"]).await.ok();
        fails(app.cli(&["project", "list", "--workspace", "ACME INC"]).await, &["several workspaces"]);
        app.cli(&["project", "list", "--workspace", "Acme Inc"]).await.ok();
    }
}

on_both_backends! {
    async fn column_commands_reorder_delete_and_refuse(backend) {
        let app = common::spawn_app(backend).await;
        let post = |name: &str| app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": name})));
        let (d, e) = (id(&post("D").await.body), id(&post("E").await.body));
        let todo = id(&app.columns().await[0]);
        let r = app.call("PATCH", "/api/columns/order", Some(json!({"columnIds": [e, todo]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);

        let out = app.cli(&["--json", "columns", "reorder", &todo, &e]).await.ok();
        assert_eq!(out["updated"], 2);
        let order: Vec<_> = out["columns"].as_array().unwrap().iter().map(|c| c["name"].clone()).collect();
        assert_eq!(order, vec![json!("To do"), json!("Doing"), json!("Done"), json!("D"), json!("E")], "the CLI prints the new order");
        let names: Vec<_> = app.columns().await.iter().map(|c| c["name"].clone()).collect();
        assert_eq!(names, order, "the server sees it");

        // Deletion moving the cards, then deleting them.
        let cols = app.columns().await;
        let doing = id(&cols[1]);
        let card = app.call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "x", "columnId": d}))).await.body;
        let out = app.cli(&["--json", "column", "delete", &d, "--move-to", &doing]).await.ok();
        assert_eq!(out["cardsMoved"], 1);
        let text = app.cli(&["columns", "list", "--workspace", &app.tenant]).await;
        assert!(text.success && !text.stdout.contains(" D "), "{}", text.stdout);
        assert_eq!(app.call("GET", &format!("/api/cards/{}", id(&card)), None).await.body["columnId"], doing.as_str());
        let out = app
            .cli(&["--json", "column", "delete", &doing, "--delete-cards", "--confirm", "APAGAR CARDS"])
            .await
            .ok();
        assert_eq!(out["cardsDeleted"], 1);
        assert_eq!(app.call("GET", &format!("/api/cards/{}", id(&card)), None).await.status, 404);
        let wrong = app.cli(&["column", "delete", &e, "--delete-cards", "--confirm", "yes"]).await;
        assert!(!wrong.success);
        assert_eq!(wrong.stderr.lines().count(), 1, "{}", wrong.stderr);

        // Column management off: the CLI is refused like the API.
        app.settings(json!({"tenantId": app.tenant, "columnManagement": false})).await;
        let refused = app.cli(&["column", "delete", &todo, "--move-to", &e]).await;
        assert!(!refused.success);
        assert!(refused.stderr.contains("COLUMN_MANAGEMENT_DISABLED"), "{}", refused.stderr);
        assert_eq!(app.columns().await.len(), 3, "nothing deleted");
    }

    async fn tokens_expire_and_revoke(backend) {
        let app = common::spawn_app(backend).await;
        let path = format!("/api/board?tenant={}", app.tenant);
        app.cli(&["--json", "account", "create", "dave"]).await.ok();
        app.cli(&["member", "add", "--workspace", &app.tenant, "--account", "dave", "--role", "member"])
            .await
            .ok();
        let short = app
            .cli(&["--json", "token", "create", "--account", "dave", "--expires-in", "1s"])
            .await
            .ok();
        assert!(short["expiresAt"].is_string(), "{short}");
        let kept = app.cli(&["--json", "token", "create", "--account", "dave"]).await.ok();
        assert!(kept["expiresAt"].is_null(), "{kept}");
        let kept = kept["token"].as_str().unwrap();
        assert_eq!(app.call_as(kept, "GET", &path, None).await.status, 200);
        app.cli(&["token", "revoke", kept]).await.ok();
        assert_eq!(app.call_as(kept, "GET", &path, None).await.status, 401, "revoked");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let short = short["token"].as_str().unwrap();
        assert_eq!(app.call_as(short, "GET", &path, None).await.status, 401, "expired");
    }

    // api.md §21, found by probing: `--expires-in 999999999999d` wrapped
    // around to the year -184861213, and 3000000d gave a date the server
    // then refused. At most 3650 days; more is refused with what is accepted.
    async fn token_lifetimes_are_at_most_3650_days(backend) {
        let app = common::spawn_app(backend).await;
        app.cli(&["--json", "account", "create", "erin"]).await.ok();
        for long in ["3651d", "999999999999d", "3000000d", "99999999999999999999999d"] {
            let out = app.cli(&["token", "create", "--account", "erin", "--expires-in", long]).await;
            assert!(!out.success, "{long} accepted: {}", out.stdout);
            assert!(out.stderr.contains("at most 3650 days"), "{long}: {}", out.stderr);
        }
        let tokens = app.cli(&["--json", "token", "list", "--account", "erin"]).await.ok();
        assert_eq!(tokens, json!([]), "nothing issued");
        let max = app.cli(&["--json", "token", "create", "--account", "erin", "--expires-in", "3650d"]).await.ok();
        let year: i64 = max["expiresAt"].as_str().unwrap()[..4].parse().unwrap();
        assert!((2030..2100).contains(&year), "{max}");
    }

    // api.md §21: the CLI refuses the names the API refuses (one rule, in
    // board-core's `Name`).
    async fn names_with_control_characters_are_refused(backend) {
        let app = common::spawn_app(backend).await;
        for bad in ["ctl\u{1}\u{1b}[31mred", "\u{200b}"] {
            let out = app.cli(&["workspace", "create", bad]).await;
            assert!(!out.success, "{bad:?} accepted: {}", out.stdout);
            assert_eq!(out.stderr.trim_end().lines().count(), 1, "{:?}", out.stderr);
            let out = app.cli(&["card", "create", "--workspace", &app.tenant, bad]).await;
            assert!(!out.success, "{bad:?} accepted: {}", out.stdout);
        }
        let list = app.cli(&["--json", "workspace", "list"]).await.ok();
        assert_eq!(list.as_array().unwrap().len(), 1, "only Default: {list}");
    }

    // api.md §24's CLI: labels, a card's edit, labels, assignees and
    // checklist, and `card show` with every field by name.
    async fn cards_in_full_are_edited_and_shown(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Ship it").await);
        let made = app.cli(&["--json", "label", "create", "--workspace", "Default", "--color", "red", "Bug"]).await.ok();
        assert_eq!(made["accent"], "red", "{made}");
        let taken = app.cli(&["label", "create", "--workspace", "Default", "bug"]).await;
        assert!(!taken.success && taken.stderr.contains("NAME_TAKEN"), "{}", taken.stderr);
        let list = app.cli(&["label", "list", "--workspace", "Default"]).await;
        assert!(list.success && list.stdout.contains("Bug") && list.stdout.contains("red"), "{}", list.stdout);
        app.cli(&["card", "label", &card, "add", "bug"]).await.ok();
        let admin = app.cli(&["--json", "member", "list", "--workspace", "Default"]).await.ok();
        let name = admin[0]["accountName"].as_str().expect("accountName").to_string();
        app.cli(&["card", "assign", &card, &name]).await.ok();
        let dir = tempfile_dir();
        let file = dir.join("d.md");
        std::fs::write(&file, "Steps **first**\n").unwrap();
        let edited = app.cli(&["--json", "card", "edit", &card, "--description-file", file.to_str().unwrap(),
                               "--due", "2027-01-31"]).await.ok();
        assert_eq!(edited["description"], "Steps **first**\n");
        assert_eq!(edited["dueAt"], "2027-01-31T00:00:00.000Z");
        let bad = app.cli(&["card", "edit", &card, "--due", "soon"]).await;
        assert!(!bad.success && bad.stderr.contains("dueAt"), "{}", bad.stderr);
        app.cli(&["checklist", &card, "add", "write tests"]).await.ok();
        app.cli(&["checklist", &card, "add", "release"]).await.ok();
        app.cli(&["checklist", &card, "check", "1"]).await.ok();
        let shown = app.cli(&["card", "show", &card]).await;
        assert!(shown.success, "{}", shown.stderr);
        for want in ["labels:      Bug", &format!("assignees:   {name}"), "due:         2027-01-31T00:00:00.000Z",
                     "checklist:   1/2", "1. [x] write tests", "2. [ ] release", "Steps **first**"] {
            assert!(shown.stdout.contains(want), "{want}: {}", shown.stdout);
        }
        let json = app.cli(&["--json", "card", "show", &card]).await.ok();
        assert_eq!(json["labels"][0]["name"], "Bug", "{json}");
        assert_eq!(json["checklistItems"].as_array().unwrap().len(), 2, "{json}");
        app.cli(&["checklist", &card, "remove", "2"]).await.ok();
        app.cli(&["card", "label", &card, "remove", "Bug"]).await.ok();
        app.cli(&["card", "unassign", &card, &name]).await.ok();
        let json = app.cli(&["--json", "card", "show", &card]).await.ok();
        assert_eq!((json["labelIds"].clone(), json["assigneeIds"].clone()), (json!([]), json!([])), "{json}");
        assert_eq!(json["checklist"], json!({"done": 1, "total": 1}));
        let none = app.cli(&["card", "label", &card, "add", "Nope"]).await;
        assert!(!none.success && none.stderr.contains("Bug"), "the refusal lists the labels: {}", none.stderr);
        app.cli(&["label", "rename", "--workspace", "Default", "Bug", "Defect"]).await.ok();
        app.cli(&["label", "delete", "--workspace", "Default", "Defect"]).await.ok();
        let list = app.cli(&["--json", "label", "list", "--workspace", "Default"]).await.ok();
        assert_eq!(list, json!([]));
    }

    // A label's id is enough to rename or delete it; a name needs its workspace.
    async fn a_label_id_alone_names_the_label(backend) {
        let app = common::spawn_app(backend).await;
        let made = app.cli(&["--json", "label", "create", "--workspace", "Default", "Bug"]).await.ok();
        let label = id(&made);
        let renamed = app.cli(&["--json", "label", "rename", &label, "Defect"]).await.ok();
        assert_eq!((renamed["id"].as_str(), renamed["name"].as_str()), (Some(label.as_str()), Some("Defect")));
        let by_name = app.cli(&["label", "rename", "Defect", "Flaw"]).await;
        assert!(!by_name.success, "a name alone is refused");
        assert!(by_name.stderr.contains("--workspace"), "the error says what to give: {}", by_name.stderr);
        let unknown = app.cli(&["label", "delete", &"z".repeat(24)]).await;
        assert!(!unknown.success && unknown.stderr.contains("--workspace"), "{}", unknown.stderr);
        let deleted = app.cli(&["--json", "label", "delete", &label]).await.ok();
        assert_eq!(deleted, json!({"id": label, "deleted": true}));
        let list = app.cli(&["--json", "label", "list", "--workspace", "Default"]).await.ok();
        assert_eq!(list, json!([]));
    }

    async fn cards_are_archived_listed_and_restored(backend) {
        let app = common::spawn_app(backend).await;
        let a = id(&app.card("Parked one").await);
        let b = id(&app.card("Parked two").await);
        app.card("On the board").await;
        let archived = app.cli(&["--json", "card", "archive", &a]).await.ok();
        assert!(archived["archivedAt"].is_string(), "{archived}");
        let text = app.cli(&["card", "archive", &b]).await;
        let said = format!("archived card \"Parked two\" ({b}) (from column \"To do\"");
        assert!(text.success && text.stdout.starts_with(&said), "{}", text.stdout);
        let listed = app.cli(&["--json", "card", "list", "--workspace", "Default", "--archived"]).await.ok();
        let ids: Vec<String> = listed.as_array().unwrap().iter().map(id).collect();
        assert_eq!(ids, [b.clone(), a.clone()], "most recently archived first");
        let table = app.cli(&["card", "list", "--workspace", "Default", "--archived"]).await;
        assert!(table.success, "{}", table.stderr);
        for word in ["archived at", "Parked one", "Parked two", "To do"] {
            assert!(table.stdout.contains(word), "{word}: {}", table.stdout);
        }
        assert!(!table.stdout.contains("On the board"), "{}", table.stdout);
        let board = app.cli(&["--json", "card", "list", "--workspace", "Default"]).await.ok();
        assert_eq!(board.as_array().unwrap().len(), 1, "{board}");
        let restored = app.cli(&["--json", "card", "restore", &a]).await.ok();
        assert!(restored["archivedAt"].is_null(), "{restored}");
        let board = app.cli(&["--json", "card", "list", "--workspace", "Default"]).await.ok();
        let last = board.as_array().unwrap().last().unwrap().clone();
        assert_eq!(id(&last), a, "restored at the end of its column");
    }

    async fn search_prints_cards_with_their_snippets(backend) {
        let app = common::spawn_app(backend).await;
        let a = id(&app.card("Ação de revisão").await);
        app.card("Coração").await;
        let r = app.call("POST", &format!("/api/cards/{a}/comments"), Some(json!({"content": "a revisão começa amanhã"}))).await;
        assert_eq!(r.status, 201);
        let found = app.cli(&["--json", "search", "--workspace", "Default", "acao rev"]).await.ok();
        assert_eq!(found["results"].as_array().unwrap().len(), 1, "{found}");
        assert_eq!(found["results"][0]["card"]["id"], a.as_str());
        let table = app.cli(&["search", "--workspace", "Default", "REVISAO"]).await;
        assert!(table.success, "{}", table.stderr);
        for word in ["matched", "snippet", "Ação de revisão", "title"] {
            assert!(table.stdout.contains(word), "{word}: {}", table.stdout);
        }
        assert!(!table.stdout.contains("Coração"), "{}", table.stdout);
        app.cli(&["card", "archive", &a]).await.ok();
        let none = app.cli(&["--json", "search", "--workspace", "Default", "acao"]).await.ok();
        assert_eq!(none["results"], json!([]));
        let with = app.cli(&["search", "--workspace", "Default", "--archived", "acao"]).await;
        assert!(with.stdout.contains("(archived)"), "{}", with.stdout);
        let bad = app.cli(&["search", "--workspace", "Default", "!!"]).await;
        assert!(!bad.success && bad.stderr.contains("at least one word"), "{}", bad.stderr);
    }

    async fn a_trello_export_is_imported_with_its_summary(backend) {
        let app = common::spawn_app(backend).await;
        let mut b = testkit::trello::TrelloBoard::new("From Trello");
        let ann = b.member("ann", "Ann");
        let list = b.list("Ideas", false);
        let card = b.card(&list, "First idea", "", &ann);
        b.comment(&card, &ann, "said by ann");
        let file = tempfile_dir().join("board.json");
        std::fs::write(&file, b.to_bytes()).unwrap();
        let file = file.to_str().unwrap();
        let ws = app.tenant.clone();
        let base = ["import", "--from", "trello", file, "--workspace", ws.as_str(), "--as", "admin"];
        let dry: Vec<&str> = [&["--json"][..], &base[..], &["--dry-run"]].concat();
        let summary = app.cli(&dry).await.ok();
        assert_eq!(summary["cards"], json!({"created": 1, "archived": 0, "skipped": 0}));
        assert_eq!(summary["unmappedMembers"][0]["username"], "ann");
        let mapped: Vec<&str> = [&base[..], &["--member", "ann=admin"]].concat();
        let out = app.cli(&mapped).await;
        assert!(out.success, "{}", out.stderr);
        assert!(out.stdout.contains("cards created"), "{}", out.stdout);
        let again: Vec<&str> = [&["--json"][..], &base[..]].concat();
        let summary = app.cli(&again).await.ok();
        assert_eq!(summary["cards"], json!({"created": 0, "archived": 0, "skipped": 1}));
        let out = app.cli(&["import", "--from", "trello", file, "--workspace", ws.as_str()]).await;
        assert!(!out.success && out.stderr.contains("--as"), "{}", out.stderr);
    }

    async fn wip_limits_are_set_listed_and_enforced(backend) {
        let app = common::spawn_app(backend).await;
        let doing = app.cli(&["--json", "column", "set", "Doing", "--workspace", "Default", "--wip-limit", "1"]).await.ok();
        assert_eq!(doing["wipLimit"], 1);
        let review = app.cli(&["--json", "column", "create", "--workspace", "Default", "Review", "--wip-limit", "2"]).await.ok();
        assert_eq!(review["wipLimit"], 2);
        let text = app.cli(&["column", "set", "Review", "--workspace", "Default", "--wip-limit", "none"]).await;
        assert!(text.success && !text.stdout.contains("WIP limit"), "{}", text.stdout);
        for bad in ["0", "10001", "many"] {
            let out = app.cli(&["column", "set", "Review", "--workspace", "Default", "--wip-limit", bad]).await;
            assert!(!out.success && out.stderr.contains("1 to 10000"), "{bad}: {}", out.stderr);
        }
        let s = app.cli(&["--json", "settings", "set", "--workspace", "Default", "wip-limits", "hard"]).await.ok();
        assert_eq!(s["wipLimits"], "HARD");
        let card = id(&app.card("first").await);
        app.cli(&["card", "move", &card, "--to", "Doing"]).await.ok();
        let second = id(&app.card("second").await);
        let refused = app.cli(&["card", "move", &second, "--to", "Doing"]).await;
        assert!(!refused.success, "{}", refused.stdout);
        assert!(refused.stderr.contains("'Doing'") && refused.stderr.contains("limit of 1"), "{}", refused.stderr);

        let list = app.cli(&["columns", "list", "--workspace", "Default"]).await;
        assert!(list.success);
        for word in ["cards", "wip limit"] {
            assert!(list.stdout.contains(word), "{word} missing from {}", list.stdout);
        }
        let doing_row = list.stdout.lines().find(|l| l.contains("Doing")).expect("a Doing row");
        let cells: Vec<&str> = doing_row.split(['|', '│', '┆']).map(str::trim).filter(|c| !c.is_empty()).collect();
        assert_eq!(&cells[3..6], ["—", "1", "1"], "not done, 1 card, limit 1 (an empty cell shows —): {doing_row}");
        let flow = app.cli(&["flow", "--workspace", "Default"]).await;
        assert!(flow.success && flow.stdout.contains("wip limit"), "{}", flow.stdout);
    }

    async fn flow_prints_the_route_object_tables_and_a_diagram(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let card = id(&app.card("shipped").await);
        let r = app.call("PATCH", &format!("/api/cards/{card}"), Some(json!({"columnId": id(&cols[2])}))).await;
        assert_eq!(r.status, 200);
        app.card("waiting").await;
        let window = ["--since", "2026-11-01", "--until", "2026-11-03T00:00:00Z"];
        let mut args = vec!["--json", "flow", "--workspace", "Default"];
        args.extend(window);
        let mut cli = app.cli(&args).await.ok();
        let path = format!("/api/flow?tenant={}&since=2026-11-01&until=2026-11-03T00:00:00Z", app.tenant);
        let mut api = app.call("GET", &path, None).await.body;
        for flow in [&mut cli, &mut api] {
            // Ages are measured at each call's own now: compare the cards only.
            for a in flow["aging"].as_array_mut().unwrap() {
                a["ageSeconds"] = json!(0);
                a["inColumnSeconds"] = json!(0);
            }
        }
        assert_eq!(cli, api, "--json prints the route's object");
        assert_eq!(cli["throughput"].as_array().unwrap().len(), 2);

        let week = app.cli(&["--json", "flow", "--workspace", "Default", "--since", "7d"]).await.ok();
        assert_eq!(week["throughput"].as_array().unwrap().len(), 7);
        assert_eq!(week["leadTime"]["count"], 1, "the card reached Done today");
        let text = app.cli(&["flow", "--workspace", "Default"]).await;
        assert!(text.success, "{}", text.stderr);
        for heading in ["visits ended", "lead time", "cycle time", "done", "oldest cards", "waiting"] {
            assert!(text.stdout.contains(heading), "{heading}: {}", text.stdout);
        }
        let svg = app.db.files_dir().with_file_name("flow.svg");
        let out = app.cli(&["flow", "--workspace", "Default", "--svg", svg.to_str().unwrap()]).await;
        assert!(out.success, "{}", out.stderr);
        let written = std::fs::read_to_string(&svg).unwrap();
        assert!(written.starts_with("<svg") && written.contains("Cumulative flow"), "{written}");
        let bad = app.cli(&["flow", "--workspace", "Default", "--since", "last week"]).await;
        assert!(!bad.success);
        assert!(bad.stderr.contains("since: Expected Nd"), "{}", bad.stderr);
        let bad = app.cli(&["flow", "--workspace", "Default", "--since", "2026-13-45"]).await;
        assert!(bad.stderr.contains("since: Expected Nd") && bad.stderr.contains("\"2026-13-45\""), "{}", bad.stderr);
        assert_eq!(bad.stderr.lines().count(), 1);
        assert_eq!(bad.stderr.lines().count(), 1);
    }

    async fn gc_removes_crash_leftovers_and_says_what(backend) {
        let app = common::spawn_app(backend).await;
        let dir = app.db.files_dir();
        std::fs::create_dir_all(&dir).unwrap();
        let (orphan, stale, fresh) = (cuid2::create_id(), format!(".tmp-{}", cuid2::create_id()), format!(".tmp-{}", cuid2::create_id()));
        for (name, age) in [(&orphan, 0), (&stale, 2 * 3600), (&fresh, 5)] {
            let path = dir.join(name);
            std::fs::write(&path, b"left by a crash").unwrap();
            let f = std::fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(age)).unwrap();
        }
        let out = app.cli(&["--json", "gc"]).await.ok();
        assert_eq!(out["orphanFiles"], json!([orphan]));
        assert_eq!(out["tempFiles"].as_array().map(Vec::len), Some(1), "{out}");
        assert_eq!(out["looseUploads"], json!([]));
        assert!(!dir.join(&orphan).exists() && !dir.join(&stale).exists());
        assert!(dir.join(&fresh).exists(), "an upload in flight stays");
        let text = app.cli(&["gc"]).await;
        assert!(text.success && text.stdout.contains("removed 0 loose uploads"), "{}", text.stdout);
    }

    // `board gc --check` finds nothing on counts the triggers kept, and names
    // the card whose kept count was changed behind their back.
    async fn gc_check_names_counts_that_differ_from_a_recount(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Counted").await);
        let r = app.call("POST", &format!("/api/cards/{card}/comments"), Some(json!({"content": "c"}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let out = app.cli(&["--json", "gc", "--check"]).await.ok();
        assert_eq!(out, json!([]));
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&app.db.url).await.unwrap();
        sqlx::query("UPDATE card_counts SET comments = comments + 1").execute(&pool).await.unwrap();
        pool.close().await;
        let bad = app.cli(&["gc", "--check"]).await;
        assert!(!bad.success, "{}", bad.stdout);
        assert!(bad.stdout.contains(&format!("card {card}: kept 2 comments")), "{}", bad.stdout);
    }
}

on_the_object_store! {
    // `board gc --files-url s3://…` sweeps the bucket: an object whose row is
    // gone is removed; an upload still open (in flight, within the hour) stays.
    async fn gc_sweeps_the_bucket(target) {
        use board_core::FileStore;
        let app = common::spawn_app(target).await;
        let card = app.card("Files").await;
        let path = format!("/api/cards/{}/attachments", id(&card));
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0".to_vec();
        let r = app.upload(&app.token, &path, &[("files", "a.png", png)]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let kept = r.body[0]["storedName"].as_str().unwrap().to_string();
        // An object without a row (its row deleted, the removal lost), and an
        // upload still being written.
        let store = board_core::S3Store::connect(app.db.files_url.as_ref().unwrap()).await.unwrap();
        let (orphan, in_flight) = (cuid2::create_id(), cuid2::create_id());
        let mut w = store.create_temp(&orphan).await.unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut w, b"left behind").await.unwrap();
        tokio::io::AsyncWriteExt::shutdown(&mut w).await.unwrap();
        store.publish(&orphan).await.unwrap();
        let mut w = store.create_temp(&in_flight).await.unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut w, b"half an upload").await.unwrap();
        let mut want = vec![kept.clone(), orphan.clone(), format!(".tmp-{in_flight}")];
        want.sort();
        assert_eq!(app.db.stored_files().await, want);

        let out = app.cli(&["--json", "gc"]).await.ok();
        assert_eq!(out["orphanFiles"], json!([orphan]), "{out}");
        assert_eq!(out["tempFiles"], json!([]), "{out}");
        let mut want = vec![kept, format!(".tmp-{in_flight}")];
        want.sort();
        assert_eq!(app.db.stored_files().await, want);
        store.discard(&in_flight).await.unwrap();
        drop(w);
    }
}

/// Every command but `board init` refuses a SQLite file that does not exist,
/// instead of making a new, empty database.
#[tokio::test]
async fn a_missing_database_is_refused_until_init() {
    let db = common::TestDb::new(common::Backend::Sqlite).await;
    let file = db.dir.path().join("board.db");
    for args in [
        vec!["workspace", "list"],
        vec!["--json", "account", "create", "x"],
    ] {
        let out = cli(&db, &args).await;
        assert!(!out.success, "{args:?}");
        let line = out.stderr.trim_end();
        assert_eq!(line.lines().count(), 1, "{line}");
        for w in [
            file.to_str().unwrap(),
            "board init",
            "--database-url",
            "BOARD_DATABASE_URL",
        ] {
            assert!(line.contains(w), "{w:?} missing from {line:?}");
        }
        assert!(!file.exists(), "{args:?} created the file");
    }
    cli(&db, &["init"]).await.ok();
    assert!(file.exists());
    let ws = cli(&db, &["--json", "workspace", "list"]).await.ok();
    assert_eq!(ws, json!([]));
}

/// `docs/cli.md` is `board --help` and every command's `--help`, so the
/// reference never drifts from the tool. `BOARD_BLESS=1 cargo test -p board-cli
/// --test cli cli_reference` writes it anew.
#[test]
fn cli_reference_is_current() {
    let help = |args: &[&str]| {
        let out = std::process::Command::new(BOARD)
            .args(args)
            .arg("--help")
            .env_remove("BOARD_DATABASE_URL")
            .env_remove("BOARD_FILES_DIR")
            .env_remove("BOARD_FILES_URL")
            .output()
            .expect("run board");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    // The names under "Commands:", without `help`.
    let commands = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .filter(|c| c != "help")
            .collect()
    };
    let mut doc = String::from(
        "# `board`: command reference\n\n\
         Generated from `board --help` and each command's `--help`; \
         `board-cli/tests/cli.rs` fails when it is out of date, and \
         `BOARD_BLESS=1 cargo test -p board-cli --test cli cli_reference` writes it anew.\n",
    );
    let mut section = |args: &[&str], text: &str| {
        let name = std::iter::once("board")
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        doc.push_str(&format!(
            "\n## `{name}`\n\n```text\n{}\n```\n",
            text.trim_end()
        ));
    };
    let top = help(&[]);
    section(&[], &top);
    for cmd in commands(&top) {
        let text = help(&[&cmd]);
        section(&[&cmd], &text);
        for sub in commands(&text) {
            section(&[&cmd, &sub], &help(&[&cmd, &sub]));
        }
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/cli.md");
    if std::env::var_os("BOARD_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &doc).unwrap();
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == doc,
        "docs/cli.md is out of date: BOARD_BLESS=1 cargo test -p board-cli --test cli cli_reference"
    );
}

on_both_backends! {
    // api.md §11: a change made by the CLI (another process, writing the
    // database directly) reaches a stream of the running server within 1 s.
    async fn a_cli_move_reaches_an_open_event_stream_within_a_second(backend) {
        let app = common::spawn_app(backend).await;
        let card = app.card("Moved by the operator").await;
        let path = format!("/api/events?tenant={}", app.tenant);
        let mut events = testkit::sse::EventStream::open(&app.http, &app.base, &app.token, &path, None).await;
        let moved = app.cli(&["--json", "card", "move", &id(&card), "--to", "Doing"]).await.ok();
        let done = std::time::Instant::now();
        // The card's creator watches it: its inbox's event comes first.
        let told = events.next(Duration::from_secs(5)).await.expect("the creator's notification");
        assert_eq!(told.event, "notification.created");
        assert_eq!(told.data["subject"]["kind"], "moved");
        let frame = events.next(Duration::from_secs(5)).await.expect("the CLI's event");
        assert!(done.elapsed() < Duration::from_secs(1), "{:?}", done.elapsed());
        assert_eq!(frame.event, "card.moved");
        assert_eq!(frame.data["subject"]["columnId"], moved["columnId"]);
        assert_eq!(frame.data["actorId"], Value::Null, "the CLI acts as the operator");
    }
}

on_both_backends! {
    async fn cards_are_placed_and_listed_in_order(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let (todo, doing) = (id(&cols[0]), id(&cols[1]));
        let c = app.cards_at_end(&todo, &["a", "b", "c"]).await;
        let create = |title: &'static str, placing: Vec<&'static str>| {
            let mut args = vec!["--json", "card", "create", "--workspace", "Default"];
            args.extend(placing);
            args.push(title);
            args
        };
        let top = id(&app.cli(&create("top", vec!["--top"])).await.ok());
        let args: Vec<&str> = ["--json", "card", "create", "--workspace", "Default", "--after", &c[0], "after a"].into();
        let after = id(&app.cli(&args).await.ok());
        app.cli(&["--json", "card", "move", &c[2], "--before", &c[0]]).await.ok();
        let moved = app.cli(&["--json", "card", "move", &top, "--bottom"]).await.ok();
        assert_eq!(moved["columnName"], "To do");
        let expected = vec![c[2].clone(), c[0].clone(), after.clone(), c[1].clone(), top.clone()];
        assert_eq!(app.column_ids(&todo).await, expected);
        let listed = app.cli(&["--json", "card", "list", "--workspace", "Default", "--column", "To do"]).await.ok();
        let listed: Vec<String> = listed.as_array().unwrap().iter().map(id).collect();
        assert_eq!(listed, expected, "card list prints the column top to bottom");
        let table = app.cli(&["card", "list", "--workspace", "Default"]).await.stdout;
        let at = |t: &str| table.find(&format!(" {t} ")).unwrap_or_else(|| panic!("{t} in {table}"));
        assert!(at("c") < at("a") && at("a") < at("after a") && at("after a") < at("b") && at("b") < at("top"), "{table}");

        // To another column, at its top.
        let d = app.cards_at_end(&doing, &["x"]).await;
        app.cli(&["--json", "card", "move", &c[1], "--to", "Doing", "--top"]).await.ok();
        assert_eq!(app.column_ids(&doing).await, vec![c[1].clone(), d[0].clone()]);

        // Refusals change nothing.
        let refused = [
            (vec!["card", "move", c[0].as_str(), "--after", c[0].as_str()], "INVALID_ANCHOR"),
            (vec!["card", "move", c[0].as_str(), "--after", d[0].as_str()], "another card of the target column"),
            (vec!["card", "move", c[0].as_str(), "--before", "nope"], "not a card id"),
            (vec!["card", "move", c[0].as_str()], "--to"),
            (vec!["card", "move", c[0].as_str(), "--top", "--bottom"], "cannot be used with"),
            (vec!["card", "create", "--workspace", "Default", "--top", "--after", c[0].as_str(), "t"], "cannot be used with"),
        ];
        for (args, says) in refused {
            let out = app.cli(&args).await;
            assert!(!out.success, "{args:?} succeeded");
            assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
        }
        let expected = vec![c[2].clone(), c[0].clone(), after, top];
        assert_eq!(app.column_ids(&todo).await, expected);
    }
}

/// Runs `board` on `db` with `input` on its standard input.
async fn cli_with_stdin(db: &TestDb, args: &[&str], input: &str) -> Cli {
    cli_env(db, args, &[], input).await
}

on_both_backends! {
    // api.md §23: `board account password NAME --stdin` sets a password the
    // account then signs in with; a weak one changes nothing.
    async fn account_password_sets_what_a_sign_in_checks(backend) {
        let app = common::spawn_app(backend).await;
        let args = ["--json", "account", "password", "admin", "--stdin"];
        let weak = cli_with_stdin(&app.db, &args, "password1\n").await;
        assert!(!weak.success && weak.stderr.contains("too weak"), "{}", weak.stderr);
        let without = app.cli(&["account", "password", "admin"]).await;
        assert!(!without.success && without.stderr.contains("--stdin"), "{}", without.stderr);
        let me = app.call("GET", "/api/me", None).await;
        assert_eq!(me.body["hasPassword"], false, "{:?}", me.body);

        let out = cli_with_stdin(&app.db, &args, "correct horse battery staple\r\n").await.ok();
        assert_eq!(out["hasPassword"], true, "{out}");
        let body = json!({"name": "admin", "password": "correct horse battery staple"});
        let r = app.call_as("", "POST", "/api/session", Some(body)).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
}

on_both_backends! {
    // api.md §23's CLI: invitations, reset links, roles and sessions.
    async fn invite_reset_link_set_role_and_sessions(backend) {
        let app = common::spawn_app(backend).await;
        let url = "https://board.example";
        let made = app.cli(&["--json", "invite", "create", "--workspace", "Default", "--role", "member",
                             "--public-url", url]).await.ok();
        let link = made["url"].as_str().unwrap().to_string();
        assert!(link.starts_with("https://board.example/invite#"), "{made}");
        let listed = app.cli(&["--json", "invite", "list", "--workspace", "Default"]).await.ok();
        assert_eq!(listed.as_array().unwrap().len(), 1);
        assert!(!listed.to_string().contains(link.split('#').nth(1).unwrap()), "no code in a list");
        let code = link.split_once('#').unwrap().1;
        let body = json!({"code": code, "name": "ada", "password": "correct horse battery staple"});
        assert_eq!(app.call_as("", "POST", "/api/invitations/accept", Some(body)).await.status, 200);
        let revoked = app.cli(&["invite", "revoke", made["id"].as_str().unwrap()]).await;
        assert!(!revoked.success, "used: {}", revoked.stdout);

        let sessions = app.cli(&["--json", "session", "list", "--account", "ada"]).await.ok();
        assert_eq!(sessions.as_array().unwrap().len(), 1, "{sessions}");
        let ended = app.cli(&["--json", "session", "revoke", "--account", "ada"]).await.ok();
        assert_eq!(ended["revoked"], 1);
        assert_eq!(app.cli(&["--json", "session", "list", "--account", "ada"]).await.ok(), json!([]));

        let last = app.cli(&["member", "set-role", "--workspace", "Default", "--account", "admin", "--role", "viewer"]).await;
        assert!(!last.success && last.stderr.contains("last ADMIN"), "{}", last.stderr);
        let up = app.cli(&["--json", "member", "set-role", "--workspace", "Default", "--account", "ada", "--role", "admin"]).await.ok();
        assert_eq!(up["role"], "ADMIN");

        let reset = app.cli(&["--json", "account", "reset-link", "ada", "--public-url", url]).await.ok();
        let code = reset["url"].as_str().unwrap().split_once("/reset#").unwrap().1.to_string();
        let body = json!({"code": code, "password": "plaid unicorn orbits the lighthouse"});
        assert_eq!(app.call_as("", "POST", "/api/password-reset", Some(body)).await.status, 200);
    }
}

/// Runs `board` on `db` with `env` (and without `BOARD_PUBLIC_URL` and
/// `BOARD_LISTEN` unless given), `input` on its standard input.
async fn cli_env(db: &TestDb, args: &[&str], env: &[(&str, &str)], input: &str) -> Cli {
    use tokio::io::AsyncWriteExt;
    let mut cmd = tokio::process::Command::new(BOARD);
    cmd.args(args)
        .env("BOARD_DATABASE_URL", &db.url)
        .env("BOARD_FILES_DIR", db.files_dir())
        .env_remove("BOARD_FILES_URL")
        .env_remove("BOARD_PUBLIC_URL")
        .env_remove("BOARD_LISTEN")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    Cli {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

on_both_backends! {
    // A reset link without a public URL says where its address came from and
    // how to give the right one; with one, it says nothing.
    async fn a_reset_link_without_a_public_url_says_where_it_comes_from(backend) {
        let app = common::spawn_app(backend).await;
        let out = cli_env(&app.db, &["account", "reset-link", "admin"], &[], "").await;
        assert!(out.success, "{}", out.stderr);
        assert!(out.stdout.starts_with("http://127.0.0.1:8080/reset#"), "{}", out.stdout);
        assert!(out.stderr.contains("BOARD_PUBLIC_URL") && out.stderr.contains("--public-url"), "{}", out.stderr);
        let out = cli_env(&app.db, &["account", "reset-link", "admin"], &[("BOARD_LISTEN", "127.0.0.1:9191")], "").await;
        assert!(out.stdout.starts_with("http://127.0.0.1:9191/reset#") && out.stderr.contains("BOARD_LISTEN"), "{}{}", out.stdout, out.stderr);
        let out = cli_env(&app.db, &["account", "reset-link", "admin"], &[("BOARD_PUBLIC_URL", "https://b.example")], "").await;
        assert!(out.stdout.starts_with("https://b.example/reset#") && out.stderr.is_empty(), "{}{}", out.stdout, out.stderr);
        // A look-alike of a taken name is refused, as over HTTP.
        let out = cli_env(&app.db, &["account", "create", "ＡＤＭＩＮ"], &[], "").await;
        assert!(!out.success && out.stderr.contains("already exists"), "{}", out.stderr);
    }
}

on_both_backends! {
    // `board account identities` lists an account's single sign-on
    // identities (api.md §27); `board account unlink` removes one, unless it
    // is the account's last way in. The identity is a row the test writes,
    // as the callback would (the flow itself: tests/e2e/sso.rs).
    async fn identities_list_and_unlink_but_not_the_last_way_in(backend) {
        let app = common::spawn_app(backend).await;
        app.cli(&["account", "create", "ida"]).await.ok();
        let ida = app.cli(&["--json", "account", "list"]).await.ok();
        let ida = ida.as_array().unwrap().iter().find(|a| a["name"] == "ida").map(id).unwrap();
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&app.db.url).await.unwrap();
        sqlx::query("INSERT INTO identities (id, account_id, issuer, subject, email, linked_at) \
                     VALUES ('idn1', $1, 'https://id.example', 'sub-ida', 'ida@example.com', '2026-01-01T00:00:00.000Z')")
            .bind(&ida).execute(&pool).await.unwrap();
        pool.close().await;
        let listed = app.cli(&["--json", "account", "identities", "ida"]).await.ok();
        assert_eq!(listed, json!([{"id": "idn1", "issuer": "https://id.example", "subject": "sub-ida",
                                   "email": "ida@example.com", "linkedAt": "2026-01-01T00:00:00.000Z"}]));
        let table = app.cli(&["account", "identities", "ida"]).await;
        assert!(table.stdout.contains("sub-ida"), "{}", table.stdout);
        let refused = app.cli(&["account", "unlink", "ida", "sub-ida"]).await;
        assert!(!refused.success && refused.stderr.contains("last way to sign in"), "{}", refused.stderr);
        let out = cli_env(&app.db, &["account", "password", "ida", "--stdin"], &[], "plaid unicorn orbits the lighthouse\n").await;
        assert!(out.success, "{}", out.stderr);
        let done = app.cli(&["--json", "account", "unlink", "ida", "idn1"]).await.ok();
        assert_eq!(done["unlinked"], true);
        assert_eq!(app.cli(&["--json", "account", "identities", "ida"]).await.ok(), json!([]));
        let gone = app.cli(&["account", "unlink", "ida", "idn1"]).await;
        assert!(!gone.success, "{}", gone.stdout);
    }
}

on_both_backends_with_mail! {
    // api.md §26: `board mail test` sends through the SMTP server and prints
    // its reply.
    async fn mail_test_sends_and_prints_the_smtp_reply(backend) {
        let app = common::spawn_app(backend).await;
        let to = testkit::mail::address("test");
        let smtp = testkit::mail::smtp_url().unwrap();
        let out = app
            .cli(&["--json", "--smtp-url", &smtp, "--mail-from", "board@example.test", "mail", "test", "--to", &to])
            .await
            .ok();
        assert_eq!(out["sent"], true);
        assert!(out["reply"].as_str().unwrap().starts_with("250 "), "{out}");
        let got = testkit::mail::wait_for(&to, 1, Duration::from_secs(10)).await;
        assert_eq!(testkit::mail::header(&got[0], "Subject"), Some("board: test message"));
        assert_eq!(got[0]["mailFrom"], "board@example.test");
        assert!(got[0]["text"].as_str().unwrap().contains("board mail test"));
    }
}

on_both_backends! {
    // api.md §26: without an SMTP server, or with one that does not answer,
    // `board mail test` says so in plain words and exits 1.
    async fn mail_test_says_in_plain_words_why_nothing_was_sent(backend) {
        let app = common::spawn_app(backend).await;
        let out = app.cli(&["mail", "test", "--to", "a@example.test"]).await;
        assert!(!out.success);
        assert!(out.stderr.contains("no SMTP server is set up: give --smtp-url"), "{}", out.stderr);

        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let url = format!("smtp://127.0.0.1:{port}");
        let out = app
            .cli(&["--smtp-url", &url, "--mail-from", "board@example.test", "mail", "test", "--to", "a@example.test"])
            .await;
        assert!(!out.success);
        assert!(
            out.stderr.contains(&format!("not sent to a@example.test: could not talk to the SMTP server smtp://127.0.0.1:{port}")),
            "{}",
            out.stderr
        );

        let out = app
            .cli(&["--smtp-url", "http://x", "--mail-from", "b@example.test", "mail", "test", "--to", "a@example.test"])
            .await;
        assert!(!out.success);
        assert!(out.stderr.contains("expected smtp://"), "{}", out.stderr);
        let out = app
            .cli(&["--smtp-url", &url, "--mail-from", "b@example.test", "mail", "test", "--to", "nobody"])
            .await;
        assert!(!out.success);
        assert!(out.stderr.contains("--to \"nobody\": not an e-mail address"), "{}", out.stderr);
    }
}
