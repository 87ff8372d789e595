//! The `board` CLI end to end, on the same database a running server uses.

mod common;

use serde_json::json;

on_both_backends! {
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
        assert_eq!(r.body, json!({"tenantId": ws_id, "columnScope": "TENANT", "columnManagement": true, "allowCrossProjectLinks": false}));

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

        let list = app.cli(&["columns", "list", "--workspace", &app.tenant]).await;
        assert!(list.success);
        for word in ["name", "accent", "position", "done", "id", "To do", "green"] {
            assert!(list.stdout.contains(word), "{word} missing from {}", list.stdout);
        }
        let list = app.cli(&["--json", "columns", "list", "--workspace", &app.tenant]).await.ok();
        assert_eq!(list.as_array().unwrap().len(), 3);

        // The server sees the CLI's move.
        let r = app.call("GET", &format!("/api/cards/{card_id}/history"), None).await;
        assert_eq!(r.body.as_array().unwrap().len(), 2);
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
        assert_eq!(board.list_workspaces().await.unwrap().len(), 1);
        let view = board.board(&board_core::Actor::Operator, Some(&app.tenant), None).await.unwrap();
        assert!(view.columns.iter().all(|c| c.cards.is_empty()));
    }
}
