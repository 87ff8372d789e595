//! Search (api.md §19): every word, case- and accent-insensitive, the last
//! one a prefix; titles and comments with snippets; title matches first, then
//! `updatedAt`, then id; archived cards only on request; paged; an index
//! written with each change; and the same results on both backends.

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends, App};

use super::history::raw_sql;

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

async fn search(app: &App, query: &str) -> common::Res {
    app.call(
        "GET",
        &format!("/api/search?tenant={}{query}", app.tenant),
        None,
    )
    .await
}

/// The titles found for `q` (URL-encoded by the caller where needed), first page.
async fn titles(app: &App, q: &str) -> Vec<String> {
    let r = search(app, &format!("&q={q}&limit=200")).await;
    assert_eq!(r.status, 200, "{q}: {:?}", r.body);
    r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["card"]["title"].as_str().unwrap().to_string())
        .collect()
}

async fn comment(app: &App, card: &str, text: &str) -> Value {
    let r = app
        .call(
            "POST",
            &format!("/api/cards/{card}/comments"),
            Some(json!({"content": text})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    r.body
}

/// Gives each card (by id) the `updatedAt` of its place in `order` (the first
/// the newest), so the order of the results is known.
async fn updated_in_order(app: &App, order: &[&str]) {
    for (i, card) in order.iter().enumerate() {
        let at = format!("2026-01-{:02}T00:00:00.000Z", 28 - i);
        let n = raw_sql(
            app,
            "UPDATE cards SET updated_at = $1 WHERE id = $2",
            &[&at, card],
        )
        .await;
        assert_eq!(n, 1);
    }
}

on_both_backends! {
    async fn words_accents_prefixes_and_order(backend) {
        let app = common::spawn_app(backend).await;
        let acao = id(&app.card("Ação de revisão").await);
        let coracao = id(&app.card("Coração").await);
        let other = id(&app.card("Plain title").await);
        comment(&app, &other, "Esta ACAO foi revista\nna segunda-feira").await;
        let old = id(&app.card("ação antiga").await);
        updated_in_order(&app, &[&acao, &coracao, &other, &old]).await;

        assert_eq!(titles(&app, "acao%20rev").await, ["Ação de revisão", "Plain title"]);
        assert_eq!(titles(&app, "acao").await, ["Ação de revisão", "ação antiga", "Plain title"], "title matches first, then newest");
        assert_eq!(titles(&app, "ACAO").await, titles(&app, "a%C3%A7%C3%A3o").await);
        assert_eq!(titles(&app, "cora").await, ["Coração"], "the last word is a prefix");
        assert_eq!(titles(&app, "cora%20de").await, Vec::<String>::new(), "whole words but the last");
        assert_eq!(titles(&app, "revisao%20acao").await, ["Ação de revisão"], "any order");
        assert_eq!(titles(&app, "segunda%20feira").await, ["Plain title"]);
        assert_eq!(titles(&app, "acao%20segunda%20antiga").await, Vec::<String>::new(), "every word in one title or comment");

        let r = search(&app, "&q=acao%20rev").await;
        let results = r.body["results"].as_array().unwrap();
        assert_eq!(results[0]["matches"], json!([{"field": "title", "commentId": null, "snippet": "Ação de revisão"}]));
        let m = &results[1]["matches"][0];
        assert_eq!((m["field"].as_str(), m["commentId"].is_string()), (Some("comment"), true));
        assert_eq!(m["snippet"], "Esta ACAO foi revista na segunda-feira");
        assert!(r.body["nextCursor"].is_null());

        // Paging: one card a page, the same order, no repeat.
        let mut seen = Vec::new();
        let mut cursor = String::new();
        loop {
            let r = search(&app, &format!("&q=acao&limit=1{cursor}")).await;
            assert_eq!(r.status, 200, "{:?}", r.body);
            seen.extend(r.body["results"].as_array().unwrap().iter().map(|x| x["card"]["title"].as_str().unwrap().to_string()));
            match r.body["nextCursor"].as_str() {
                Some(c) => cursor = format!("&cursor={c}"),
                None => break,
            }
        }
        assert_eq!(seen, titles(&app, "acao").await);
    }

    async fn archived_and_projects(backend) {
        let app = common::spawn_app(backend).await;
        let pid = app.project(&app.tenant, "Site").await;
        let card = |title: &str, project: Option<&str>| {
            let mut body = json!({"tenantId": app.tenant, "title": title});
            if let Some(p) = project {
                body["projectId"] = json!(p);
            }
            body
        };
        let a = id(&app.call("POST", "/api/cards", Some(card("release notes", None))).await.body);
        let b = id(&app.call("POST", "/api/cards", Some(card("release plan", Some(&pid)))).await.body);
        let c = id(&app.call("POST", "/api/cards", Some(card("release party", None))).await.body);
        updated_in_order(&app, &[&a, &b, &c]).await;
        assert_eq!(app.call("POST", &format!("/api/cards/{c}/archive"), None).await.status, 200);
        assert_eq!(titles(&app, "release").await, ["release notes", "release plan"]);
        let r = search(&app, "&q=release&archived=true").await;
        let found: Vec<&str> = r.body["results"].as_array().unwrap().iter().map(|x| x["card"]["title"].as_str().unwrap()).collect();
        assert_eq!(found.len(), 3, "{found:?}");
        let r = search(&app, &format!("&q=release&project={pid}")).await;
        assert_eq!(r.body["results"].as_array().unwrap().len(), 1);
        assert_eq!(r.body["results"][0]["card"]["id"], b.as_str());
        // Another workspace's cards are not found.
        let other = app.workspace("Other").await;
        app.card_in(&other, "release elsewhere").await;
        assert_eq!(titles(&app, "elsewhere").await, Vec::<String>::new());

        for (query, field) in [
            ("", "q"),
            ("&q=", "q"),
            ("&q=%20%20", "q"),
            ("&q=!!!", "q"),
            (&format!("&q={}", "a".repeat(201)), "q"),
            ("&q=x&limit=0", "limit"),
            ("&q=x&limit=201", "limit"),
            ("&q=x&archived=yes", "archived"),
            ("&q=x&cursor=nope", "cursor"),
        ] {
            let r = search(&app, query).await;
            assert_eq!(r.status, 422, "{query}: {:?}", r.body);
            assert!(r.body["details"]["fieldErrors"][field].is_array(), "{query}: {:?}", r.body);
        }
        assert_eq!(search(&app, &format!("&q={}", "a".repeat(200))).await.status, 200);
        let r = app.call("GET", "/api/search?q=x", None).await;
        assert_eq!(r.status, 422);
        let stranger = app.account_in(&other, "sam", "member").await;
        let r = app.call_as(&stranger, "GET", &format!("/api/search?tenant={}&q=", app.tenant), None).await;
        assert_eq!(r.status, 403, "403 before 422: {:?}", r.body);
    }

    async fn the_index_follows_every_write(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("alpha").await);
        assert_eq!(titles(&app, "alpha").await, ["alpha"], "found as soon as created");
        let r = app.call("PATCH", &format!("/api/cards/{card}"), Some(json!({"title": "bravo"}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(titles(&app, "alpha").await, Vec::<String>::new(), "the old title is gone");
        assert_eq!(titles(&app, "bravo").await, ["bravo"]);
        let doing = id(&app.columns().await[1]);
        let r = app.call("PATCH", &format!("/api/cards/{card}"), Some(json!({"title": "charlie", "columnId": doing}))).await;
        assert_eq!(r.status, 200);
        assert_eq!((titles(&app, "bravo").await.len(), titles(&app, "charlie").await.len()), (0, 1), "a move with a rename");

        let note = id(&comment(&app, &card, "delta echo").await);
        assert_eq!(titles(&app, "delta").await, ["charlie"]);
        let r = app.call("PATCH", &format!("/api/comments/{note}"), Some(json!({"content": "foxtrot"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!((titles(&app, "delta").await.len(), titles(&app, "foxtrot").await.len()), (0, 1));
        assert_eq!(app.call("DELETE", &format!("/api/comments/{note}"), None).await.status, 200);
        assert_eq!(titles(&app, "foxtrot").await.len(), 0);

        comment(&app, &card, "golf").await;
        assert_eq!(app.call("DELETE", &format!("/api/cards/{card}"), None).await.status, 200);
        assert_eq!((titles(&app, "charlie").await.len(), titles(&app, "golf").await.len()), (0, 0));

        // A column deleted with its cards takes their words.
        let col = id(&app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": "Temp"}))).await.body);
        let doomed = id(&app.call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "hotel", "columnId": col}))).await.body);
        comment(&app, &doomed, "india").await;
        let r = app.call("DELETE", &format!("/api/columns/{col}"), Some(json!({"cards": "DELETE", "confirm": "APAGAR CARDS"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!((titles(&app, "hotel").await.len(), titles(&app, "india").await.len()), (0, 0));
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&app.db.url).await.unwrap();
        let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM search_terms").fetch_one(&pool).await.unwrap();
        pool.close().await;
        assert_eq!(left, 0, "no word of a deleted card or comment is left");
    }
}

/// The same cards and comments (accents, prefixes, archived cards, two
/// projects), loaded through the API into `app`; the times set so the order
/// is known. Returns nothing: the comparison is by titles.
async fn load_shared_data(app: &App) {
    let pid = app.project(&app.tenant, "Web").await;
    let pid2 = app.project(&app.tenant, "Mobile").await;
    let titles = [
        "Ação de revisão",
        "Revisão do código",
        "Coração partido",
        "ação rápida",
        "Crème brûlée",
        "CRÈME fraîche",
        "Straße und Weg",
        "naïve café",
        "Über cool",
        "über-release 2.0",
        "release 2.1",
        "Release notes",
        "日本語 テスト",
        "Σίσυφος",
        "ÉTÉ été",
        "Zoë's plan",
    ];
    let mut ids = Vec::new();
    for (i, t) in titles.iter().enumerate() {
        let mut body = json!({"tenantId": app.tenant, "title": t});
        match i % 3 {
            1 => body["projectId"] = json!(pid),
            2 => body["projectId"] = json!(pid2),
            _ => {}
        }
        let r = app.call("POST", "/api/cards", Some(body)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        ids.push(id(&r.body));
    }
    let comments = [
        (0, "Precisa de revisão urgente"),
        (1, "ação!"),
        (3, "cafe com creme"),
        (4, "release the crème"),
        (7, "Naive approach; cafe"),
        (8, "über alles"),
        (10, "revisao final, release candidate"),
        (11, "notes notes notes"),
        (12, "テスト done"),
        (14, "été indien"),
        (15, "plan B, plan C"),
    ];
    for (card, text) in comments {
        comment(app, &ids[card], text).await;
    }
    for archived in [2, 9] {
        let r = app
            .call(
                "POST",
                &format!("/api/cards/{}/archive", ids[archived]),
                None,
            )
            .await;
        assert_eq!(r.status, 200);
    }
    // Distinct updatedAt per card, in an order unlike creation.
    let order: Vec<&str> = [5, 0, 12, 3, 9, 1, 14, 7, 2, 11, 4, 15, 6, 10, 8, 13]
        .iter()
        .map(|i| ids[*i].as_str())
        .collect();
    updated_in_order(app, &order).await;
}

/// What a search returned, by titles: each card with its matches' fields and snippets.
async fn outcome(app: &App, query: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut cursor = String::new();
    loop {
        let r = search(app, &format!("{query}&limit=3{cursor}")).await;
        assert_eq!(r.status, 200, "{query}: {:?}", r.body);
        for x in r.body["results"].as_array().unwrap() {
            let matches: Vec<Value> = x["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| json!([m["field"], m["snippet"]]))
                .collect();
            all.push(json!([x["card"]["title"], matches]));
        }
        match r.body["nextCursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => return all,
        }
    }
}

const QUERIES: &[&str] = &[
    "&q=acao",
    "&q=revis",
    "&q=revisao%20acao",
    "&q=CREME",
    "&q=cr",
    "&q=cafe",
    "&q=naive",
    "&q=uber",
    "&q=release",
    "&q=release%202",
    "&q=strasse",
    "&q=stra%C3%9Fe",
    "&q=%E3%83%86%E3%82%B9",
    "&q=ete",
    "&q=plan%20c",
    "&q=zoe%20s",
    "&q=notes",
    "&q=acao&archived=true",
    "&q=release&archived=true",
    "&q=o",
    "&q=%CF%83%CE%AF%CF%83%CF%85",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn sqlite_and_postgres_find_the_same_cards_in_the_same_order() {
    let sqlite = common::spawn_app(common::Backend::Sqlite).await;
    let postgres = common::spawn_app(common::Backend::Postgres).await;
    load_shared_data(&sqlite).await;
    load_shared_data(&postgres).await;
    let mut found = 0;
    for q in QUERIES {
        let (a, b) = (outcome(&sqlite, q).await, outcome(&postgres, q).await);
        assert_eq!(a, b, "{q}");
        found += a.len();
    }
    // The projects narrow alike too.
    assert!(found > 30, "the queries find something: {found}");
}

on_both_backends! {
    async fn snippets_are_the_words_a_reader_sees(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Plain title").await);
        comment(&app, &card, "**Bold** rollout, see [the guide](https://example.com/rollout-guide) and `cargo run`").await;
        let r = search(&app, "&q=rollout").await;
        let m = &r.body["results"][0]["matches"][0];
        assert_eq!(m["field"], "comment");
        assert_eq!(m["snippet"], "Bold rollout, see the guide and cargo run");
    }
}
