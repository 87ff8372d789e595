//! What `board` and the API say, pinned word for word where a newcomer read
//! them wrong once: a setting to fix is not an `(INTERNAL)` failure, every
//! accepted form of an option is named, a refusal says what would be
//! accepted, and each command says what it changed.

use serde_json::{json, Value};
use testkit::process::Cli;
use testkit::{self as common, on_both_backends, App};

/// The `board` binary cargo built for these tests.
const BOARD: &str = env!("CARGO_BIN_EXE_board");

async fn cli(app: &App, args: &[&str]) -> Cli {
    testkit::process::cli(BOARD, &app.db, args).await
}

/// Runs `board` with `args` and no database at all, for what it refuses first.
fn bare(args: &[&str]) -> Cli {
    let out = std::process::Command::new(BOARD)
        .args(args)
        .env_remove("BOARD_DATABASE_URL")
        .env_remove("BOARD_FILES_URL")
        .output()
        .expect("run board");
    Cli {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The result line of a command run with `args`.
async fn said(app: &App, args: &[&str]) -> String {
    let out = cli(app, args).await;
    assert!(out.success, "{args:?}: {}", out.stderr);
    out.stdout.trim_end().to_string()
}

#[test]
fn an_unsupported_database_url_is_a_setting_to_fix() {
    let out = bare(&["--database-url", "mysql://db/board", "workspace", "list"]);
    assert!(!out.success);
    assert_eq!(
        out.stderr,
        "board: unsupported database URL \"mysql://db/board\": use sqlite://PATH or \
         postgres://…\n"
    );
}

/// `board --version` names the program and its version (docs/deploy.md,
/// *Upgrades*), and needs no database.
#[test]
fn version_names_the_program_and_its_version() {
    let out = bare(&["--version"]);
    assert!(out.success, "{}", out.stderr);
    assert_eq!(out.stdout, format!("board {}\n", env!("CARGO_PKG_VERSION")));
}

/// A PostgreSQL server without the URL's database: named, with what to do.
#[tokio::test]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn a_missing_postgres_database_is_named() {
    let url = common::postgres_url().expect("BOARD_TEST_POSTGRES_URL");
    let name = format!("board_missing_{}", cuid2::create_id());
    let url = common::replace_database(&url, &name);
    let out = bare(&["--database-url", &url, "workspace", "list"]);
    assert!(!out.success);
    assert_eq!(
        out.stderr,
        format!(
            "board: database \"{name}\" does not exist: create it first (docs/deploy.md, \
             \"PostgreSQL and several servers\": createdb)\n"
        )
    );
}

on_both_backends! {
    async fn card_commands_say_what_changed(backend) {
        let app = common::spawn_app(backend).await;
        let created = cli(&app, &["--json", "card", "create", "--workspace", "Default", "Ship"]).await;
        let card: Value = created.ok();
        let id = card["id"].as_str().unwrap().to_string();
        let c = format!("card \"Ship\" ({id})");
        let moved = said(&app, &["card", "move", &id, "--to", "Done"]).await;
        assert!(moved.starts_with(&format!("moved {c} to column \"Done\" (")), "{moved}");
        let edited = said(&app, &["card", "edit", &id, "--title", "Ship", "--due", "2030-01-01"]).await;
        assert_eq!(edited, format!("changed the title, due date of {c}"));
        said(&app, &["label", "create", "--workspace", "Default", "Bug"]).await;
        let labelled = said(&app, &["card", "label", &id, "add", "Bug"]).await;
        assert_eq!(labelled, format!("added label \"Bug\" to {c}"));
        let unlabelled = said(&app, &["card", "label", &id, "remove", "Bug"]).await;
        assert_eq!(unlabelled, format!("removed label \"Bug\" from {c}"));
        let assigned = said(&app, &["card", "assign", &id, "admin"]).await;
        assert_eq!(assigned, format!("assigned admin to {c}"));
        let archived = said(&app, &["card", "archive", &id]).await;
        assert!(archived.starts_with(&format!("archived {c} (from column \"Done\"")), "{archived}");
    }

    async fn flow_since_names_every_accepted_form(backend) {
        let app = common::spawn_app(backend).await;
        let out = cli(&app, &["flow", "--workspace", "Default", "--since", "yesterday"]).await;
        assert!(!out.success);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        for form in ["\"yesterday\"", "Nd", "14d", "YYYY-MM-DD", "RFC 3339"] {
            assert!(out.stderr.contains(form), "{form} missing: {}", out.stderr);
        }
    }

    async fn a_reorder_shows_no_empty_card_counts(backend) {
        let app = common::spawn_app(backend).await;
        let out = said(&app, &["columns", "reorder", "--workspace", "Default", "Done", "Doing"]).await;
        let mut lines = out.lines();
        assert_eq!(lines.next(), Some("2 columns reordered; the set is now:"));
        let header = lines.find(|l| l.contains("name")).expect("a header");
        assert!(!header.contains("cards"), "{out}");
        let deleted = {
            said(&app, &["column", "create", "--workspace", "Default", "Spare"]).await;
            said(&app, &["column", "delete", "--workspace", "Default", "Spare", "--move-to", "Done"])
                .await
        };
        assert!(deleted.ends_with(": 0 cards moved, 0 cards deleted"), "{deleted}");
    }

    async fn a_refused_name_says_what_would_be_accepted(backend) {
        let app = common::spawn_app(backend).await;
        let empty = "Must not be empty: give 1 to 100 characters (spaces at either end do not count)";
        let res = app
            .call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "   "})))
            .await;
        assert_eq!(res.status, 422, "{:?}", res.body);
        assert_eq!(res.body["details"]["fieldErrors"]["title"], json!([empty]), "{:?}", res.body);
        let long = "x".repeat(101);
        let res = app
            .call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": long})))
            .await;
        assert_eq!(
            res.body["details"]["fieldErrors"]["title"],
            json!(["Too long: at most 100 characters, this has 101"])
        );
        let res = app
            .call("POST", "/api/cards", Some(json!({"tenantId": "nope", "title": "A"})))
            .await;
        assert_eq!(
            res.body["details"]["fieldErrors"]["tenantId"],
            json!(["Expected an id: 24 lowercase letters and digits, starting with a letter"])
        );
        let out = cli(&app, &["card", "create", "--workspace", "Default", " "]).await;
        assert!(!out.success);
        assert_eq!(out.stderr, format!("board: invalid input: title: {empty}\n"));
    }
}
