//! `GET /api/flow` (api.md §13) on cards created and moved at controlled
//! times: the test moves cards through the API, then sets each history entry's
//! `moved_at` (with the next entry's `from_at`) and each card's `created_at`
//! to chosen instants directly in the test database (no clock inside the
//! service is faked).

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};

use super::history::raw_sql;

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

async fn flow(app: &common::App, query: &str) -> Value {
    let r = app
        .call(
            "GET",
            &format!("/api/flow?tenant={}{query}", app.tenant),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

async fn move_to(app: &common::App, card: &str, column: &str) {
    let r = app
        .call(
            "PATCH",
            &format!("/api/cards/{card}"),
            Some(json!({"columnId": column})),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

/// Places the card's creation and its history entries (by seq, from 1) at
/// `times`, and each entry's start of the visit it ends (`from_at`) with them.
async fn set_times(app: &common::App, card: &str, times: &[String]) {
    let n = raw_sql(
        app,
        "UPDATE cards SET created_at = $1 WHERE id = $2",
        &[&times[0], card],
    )
    .await;
    assert_eq!(n, 1);
    for (seq, at) in times.iter().enumerate() {
        let seq = (seq + 1).to_string();
        let sql = "UPDATE history SET moved_at = $1 WHERE card_id = $2 AND CAST(seq AS TEXT) = $3";
        assert_eq!(
            raw_sql(app, sql, &[at, card, &seq]).await,
            1,
            "{card} entry {seq}"
        );
    }
    // Each entry keeps the start of the visit it ends: its predecessor's time.
    let sql = "UPDATE history SET from_at = (SELECT p.moved_at FROM history p \
               WHERE p.card_id = history.card_id AND p.seq = history.seq - 1) WHERE card_id = $1";
    assert_eq!(raw_sql(app, sql, &[card]).await as usize, times.len());
}

/// The card's history entries, by seq: `(moved_at, to_column_id,
/// from_column_id, from_at)`.
async fn history_rows(
    app: &common::App,
    card: &str,
) -> Vec<(String, Option<String>, Option<String>, Option<String>)> {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    let rows = sqlx::query_as(
        "SELECT moved_at, to_column_id, from_column_id, from_at FROM history \
         WHERE card_id = $1 ORDER BY seq",
    )
    .bind(card)
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    rows
}

/// The days of the default window (the 30 UTC days up to now), checked
/// against `until` (now): day `k` back from today is `days[29 - k]`.
fn days_of(flow: &Value) -> Vec<String> {
    let days: Vec<String> = flow["throughput"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["day"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(days.len(), 30);
    assert_eq!(days[29], flow["until"].as_str().unwrap()[..10]);
    assert_eq!(
        flow["since"].as_str().unwrap(),
        format!("{}T00:00:00.000Z", days[0])
    );
    days
}

fn close(actual: &Value, expected: f64, what: &str) {
    let actual = actual
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: {actual}"));
    assert!(
        (actual - expected).abs() <= 1.0,
        "{what}: {actual} is not {expected}"
    );
}

fn column<'a>(flow: &'a Value, name: &str) -> &'a Value {
    flow["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", flow["columns"]))
}

const DAY: f64 = 86_400.0;
const HOUR: f64 = 3_600.0;

on_both_backends! {
    async fn metrics_from_controlled_times(backend) {
        let app = common::spawn_app(backend).await;
        let cols: Vec<String> = app.columns().await.iter().map(id).collect();
        let days = days_of(&flow(&app, "").await);
        let at = |back: usize, time: &str| format!("{}T{time}.000Z", days[29 - back]);
        let (a, b, c) = (id(&app.card("a").await), id(&app.card("b").await), id(&app.card("c").await));
        move_to(&app, &a, &cols[1]).await;
        move_to(&app, &a, &cols[2]).await;
        move_to(&app, &b, &cols[1]).await;
        set_times(&app, &a, &[at(5, "10:00:00"), at(4, "10:00:00"), at(2, "16:00:00")]).await;
        set_times(&app, &b, &[at(3, "00:00:00"), at(1, "12:00:00")]).await;
        set_times(&app, &c, &[at(1, "08:00:00")]).await;

        let f = flow(&app, "").await;
        // Lead: creation to Done; cycle: leaving To do to Done (card a only).
        assert_eq!(f["leadTime"]["count"], 1);
        close(&f["leadTime"]["meanSeconds"], 3.0 * DAY + 6.0 * HOUR, "lead");
        close(&f["leadTime"]["p85Seconds"], 3.0 * DAY + 6.0 * HOUR, "lead p85");
        assert_eq!(f["cycleTime"]["count"], 1);
        close(&f["cycleTime"]["medianSeconds"], 2.0 * DAY + 6.0 * HOUR, "cycle");
        // Time in To do: a 1 day, b 2.5 days (visits that ended); c is still there.
        let todo = column(&f, "To do");
        assert_eq!(todo["columnId"], cols[0].as_str());
        assert_eq!(todo["wip"], 1);
        assert_eq!(todo["timeInColumn"]["count"], 2);
        close(&todo["timeInColumn"]["meanSeconds"], 1.75 * DAY, "To do mean");
        close(&todo["timeInColumn"]["medianSeconds"], DAY, "To do median (nearest rank)");
        close(&todo["timeInColumn"]["p85Seconds"], 2.5 * DAY, "To do p85");
        let doing = column(&f, "Doing");
        assert_eq!((doing["wip"].as_i64(), doing["timeInColumn"]["count"].as_i64()), (Some(1), Some(1)));
        close(&doing["timeInColumn"]["meanSeconds"], 2.0 * DAY + 6.0 * HOUR, "Doing");
        let done = column(&f, "Done");
        assert_eq!((done["wip"].as_i64(), done["timeInColumn"]["count"].as_i64()), (Some(1), Some(0)));
        assert_eq!(done["timeInColumn"]["meanSeconds"], Value::Null);

        // Throughput: the one card that reached Done, on its day.
        let throughput = f["throughput"].as_array().unwrap();
        let total: i64 = throughput.iter().map(|d| d["done"].as_i64().unwrap()).sum();
        assert_eq!(total, 1);
        assert_eq!(throughput[27], json!({"day": days[27], "done": 1}));

        // Cumulative flow: today is the board; earlier days as the times say.
        let cfd = f["cumulativeFlow"].as_array().unwrap();
        let board = app.call("GET", &format!("/api/board?tenant={}", app.tenant), None).await.body;
        for col in board["columns"].as_array().unwrap() {
            let n = col["cards"].as_array().unwrap().len();
            assert_eq!(cfd[29]["counts"][col["name"].as_str().unwrap()], n, "today, {}", col["name"]);
        }
        assert_eq!(cfd[26]["counts"], json!({"To do": 1, "Doing": 1, "Done": 0}), "day -3");
        assert_eq!(cfd[25]["counts"], json!({"To do": 0, "Doing": 1, "Done": 0}), "day -4");
        assert_eq!(cfd[23]["counts"], json!({"To do": 0, "Doing": 0, "Done": 0}), "day -6");

        // Aging: b then c (not done), oldest first, with their ages.
        let aging = f["aging"].as_array().unwrap();
        assert_eq!(aging.len(), 2);
        assert_eq!((aging[0]["cardId"].as_str(), aging[1]["cardId"].as_str()), (Some(b.as_str()), Some(c.as_str())));
        assert_eq!(aging[0]["columnName"], "Doing");
        let age = aging[0]["ageSeconds"].as_f64().unwrap() - aging[0]["inColumnSeconds"].as_f64().unwrap();
        assert!((age - 2.5 * DAY).abs() <= 1.0, "b's age minus its time in Doing: {age}");

        // A window of two days holds only what happened in it.
        let f = flow(&app, &format!("&since={}&until={}", days[27], days[29])).await;
        assert_eq!(f["throughput"].as_array().unwrap().len(), 2);
        assert_eq!(f["leadTime"]["count"], 1);
        assert_eq!(column(&f, "To do")["timeInColumn"]["count"], 1, "b's visit ended on day -1");
        // Visits that began before the window (a in Doing, b in To do) count from its start.
        let cfd: Vec<&Value> = f["cumulativeFlow"].as_array().unwrap().iter().map(|d| &d["counts"]).collect();
        assert_eq!(cfd, [&json!({"To do": 1, "Doing": 0, "Done": 1}), &json!({"To do": 1, "Doing": 1, "Done": 1})]);
        close(&column(&f, "Doing")["timeInColumn"]["meanSeconds"], 2.0 * DAY + 6.0 * HOUR, "a's Doing visit, begun before");
        let f = flow(&app, &format!("&since={}&until={}", days[24], days[26])).await;
        assert_eq!(f["leadTime"]["count"], 0);
        assert_eq!(f["leadTime"]["meanSeconds"], Value::Null);
        assert_eq!(column(&f, "To do")["timeInColumn"]["count"], 1, "a's visit ended on day -4");
    }

    async fn a_column_deleted_with_move_keeps_its_name(backend) {
        let app = common::spawn_app(backend).await;
        let cols: Vec<String> = app.columns().await.iter().map(id).collect();
        let days = days_of(&flow(&app, "").await);
        let at = |back: usize| format!("{}T00:00:00.000Z", days[29 - back]);
        let r = app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": "Review"}))).await;
        assert_eq!(r.status, 201);
        let review = id(&r.body);
        let d = id(&app.card("d").await);
        move_to(&app, &d, &review).await;
        let path = format!("/api/columns/{review}");
        let r = app.call("DELETE", &path, Some(json!({"cards": "MOVE", "targetColumnId": cols[1]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        // Each entry the service wrote ends the visit its predecessor began.
        let entries = history_rows(&app, &d).await;
        assert_eq!(entries.len(), 3);
        assert_eq!((&entries[0].2, &entries[0].3), (&None, &None), "the first ends no visit");
        assert_eq!(entries[1].2.as_deref(), Some(cols[0].as_str()), "left To do");
        assert_eq!(entries[2].2, None, "left Review, deleted since");
        for i in 1..3 {
            assert_eq!(entries[i].3.as_ref(), Some(&entries[i - 1].0), "entry {i}'s visit began then");
        }
        set_times(&app, &d, &[at(6), at(5), at(3)]).await;

        let f = flow(&app, "").await;
        let gone = column(&f, "Review");
        assert_eq!(gone["columnId"], Value::Null);
        assert_eq!(gone["wip"], 0);
        assert_eq!(gone["timeInColumn"]["count"], 1);
        close(&gone["timeInColumn"]["meanSeconds"], 2.0 * DAY, "Review");
        let cfd = f["cumulativeFlow"].as_array().unwrap();
        assert_eq!(cfd[25]["counts"]["Review"], 1, "day -4");
        assert_eq!(cfd[26]["counts"]["Review"], 0, "day -3: moved on");
        assert_eq!(cfd[26]["counts"]["Doing"], 1);
        assert_eq!(cfd[29]["counts"], json!({"To do": 0, "Doing": 1, "Done": 0, "Review": 0}));
        // The deleted column's id is gone from history; the entry that moved the card has Doing's.
        let sql = "UPDATE history SET from_name = from_name WHERE card_id = $1 AND to_column_id IS NULL";
        assert_eq!(raw_sql(&app, sql, &[&d]).await, 1, "only the entry into Review lost its id");
        let sql = "UPDATE history SET from_name = from_name \
                   WHERE card_id = $1 AND from_column_id IS NULL AND from_at IS NOT NULL";
        assert_eq!(raw_sql(&app, sql, &[&d]).await, 1, "and the entry that ended the visit to it");
    }

    async fn window_errors_and_access(backend) {
        let app = common::spawn_app(backend).await;
        let base = format!("/api/flow?tenant={}", app.tenant);
        for (query, field) in [
            ("&since=yesterday", "since"),
            ("&until=2026-13-01", "until"),
            ("&since=2026-11-02&until=2026-11-01", "since"),
            ("&since=2026-11-01&until=2026-11-01", "since"),
            ("&since=2024-01-01&until=2026-01-01", "since"),
        ] {
            let r = app.call("GET", &format!("{base}{query}"), None).await;
            assert_eq!(r.status, 422, "{query}: {:?}", r.body);
            assert_eq!(r.body["error"], "VALIDATION_FAILED");
            let message = r.body["details"]["fieldErrors"][field][0].as_str().unwrap_or_default();
            assert!(!message.is_empty(), "{query}: {:?}", r.body);
        }
        let r = app.call("GET", "/api/flow", None).await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["details"]["fieldErrors"]["tenant"][0], "Required");
        let r = app.call("GET", &format!("{base}&project={}", cuid2::create_id()), None).await;
        assert_eq!(r.status, 422);
        assert!(r.body["details"]["fieldErrors"]["project"].is_array());
        let ok = "&since=2026-10-01T00:00:00%2B02:00&until=2026-10-03";
        let r = app.call("GET", &format!("{base}{ok}"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["since"], "2026-09-30T22:00:00.000Z");
        assert_eq!(r.body["cumulativeFlow"].as_array().unwrap().len(), 3);

        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        assert_eq!(app.call_as(&viewer, "GET", &base, None).await.status, 200);
        let other = app.workspace("Other").await;
        let outsider = app.account_in(&other, "olga", "admin").await;
        let r = app.call_as(&outsider, "GET", &format!("{base}&since=nope"), None).await;
        assert_eq!(r.status, 403, "access before the window's check");
        assert_eq!(app.call_as("", "GET", &base, None).await.status, 401);
    }

    // api.md §21, found by probing: a card moved into the done column and
    // `GET /api/flow` at once missed the move in 10 of 20 tries on SQLite (its
    // history time came from the strictly increasing write clock, which may
    // run a millisecond ahead of the wall clock the window ended at,
    // exclusive). The default window now ends at that same clock.
    async fn a_change_just_before_the_read_is_counted(backend) {
        let app = common::spawn_app(backend).await;
        let done = app.columns().await[2]["id"].as_str().unwrap().to_string();
        for round in 1..=20 {
            let card = id(&app.card(&format!("Quick {round}")).await);
            move_to(&app, &card, &done).await;
            let f = flow(&app, "").await;
            assert_eq!(f["leadTime"]["count"], round, "round {round}: {}", f["leadTime"]);
            let throughput = f["throughput"].as_array().unwrap();
            let total: i64 = throughput.iter().map(|d| d["done"].as_i64().unwrap()).sum();
            assert_eq!(total, round, "round {round}: the move is in the throughput");
        }
    }
}

on_both_backends! {
    async fn archived_cards_leave_the_cumulative_flow_wip_and_aging(backend) {
        let app = common::spawn_app(backend).await;
        let cols: Vec<String> = app.columns().await.iter().map(id).collect();
        let days = days_of(&flow(&app, "").await);
        let at = |back: usize, time: &str| format!("{}T{time}.000Z", days[29 - back]);
        let (kept, back, gone, moved) = (
            id(&app.card("kept").await),
            id(&app.card("archived, then restored").await),
            id(&app.card("archived").await),
            id(&app.card("archived, moved while archived").await),
        );
        move_to(&app, &moved, &cols[1]).await;
        for card in [&back, &gone, &moved] {
            let r = app.call("POST", &format!("/api/cards/{card}/archive"), None).await;
            assert_eq!(r.status, 200, "{:?}", r.body);
        }
        // `moved` goes on from Doing to Done while archived.
        move_to(&app, &moved, &cols[2]).await;
        let r = app.call("POST", &format!("/api/cards/{back}/restore"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        for card in [&kept, &back, &gone] {
            set_times(&app, card, &[at(6, "10:00:00")]).await;
        }
        set_times(&app, &moved, &[at(6, "10:00:00"), at(5, "10:00:00"), at(2, "10:00:00")]).await;
        // The stays: back from day -4 to day -2, gone from day -3 on, moved from day -4 on.
        let stay = "UPDATE card_archives SET archived_at = $1, restored_at = $2 WHERE card_id = $3";
        let open = "UPDATE card_archives SET archived_at = $1 WHERE card_id = $2";
        assert_eq!(raw_sql(&app, stay, &[&at(4, "12:00:00"), &at(2, "12:00:00"), &back]).await, 1);
        assert_eq!(raw_sql(&app, open, &[&at(3, "12:00:00"), &gone]).await, 1);
        assert_eq!(raw_sql(&app, open, &[&at(4, "12:00:00"), &moved]).await, 1);

        let f = flow(&app, "").await;
        let cfd: Vec<&Value> = f["cumulativeFlow"].as_array().unwrap().iter().map(|d| &d["counts"]).collect();
        assert_eq!(cfd[23], &json!({"To do": 4, "Doing": 0, "Done": 0}), "day -6: all four created");
        assert_eq!(cfd[24], &json!({"To do": 3, "Doing": 1, "Done": 0}), "day -5: moved to Doing");
        assert_eq!(cfd[25], &json!({"To do": 2, "Doing": 0, "Done": 0}), "day -4: back and moved archived");
        assert_eq!(cfd[26], &json!({"To do": 1, "Doing": 0, "Done": 0}), "day -3: gone archived");
        assert_eq!(cfd[27], &json!({"To do": 2, "Doing": 0, "Done": 0}), "day -2: back restored; moved reached Done archived");
        assert_eq!(cfd[29], &json!({"To do": 2, "Doing": 0, "Done": 0}), "today");
        // Today's counts are the board's.
        let board = app.call("GET", &format!("/api/board?tenant={}", app.tenant), None).await.body;
        let on_board: Vec<usize> = board["columns"].as_array().unwrap().iter().map(|c| c["cards"].as_array().unwrap().len()).collect();
        assert_eq!(on_board, [2, 0, 0]);
        let wip: Vec<i64> = f["columns"].as_array().unwrap().iter().map(|c| c["wip"].as_i64().unwrap()).collect();
        assert_eq!(wip, [2, 0, 0]);
        let aging: Vec<&str> = f["aging"].as_array().unwrap().iter().map(|a| a["cardId"].as_str().unwrap()).collect();
        assert_eq!(aging.len(), 2);
        assert!(aging.contains(&kept.as_str()) && aging.contains(&back.as_str()), "{aging:?}");
        // Archiving changes no time: the moved card's lead time counts as before.
        assert_eq!(f["leadTime"]["count"], 1);
        close(&f["leadTime"]["meanSeconds"], 4.0 * DAY, "lead of the card archived on its way");
        // A window that starts inside a stay.
        let f = flow(&app, &format!("&since={}&until={}", days[26], days[28])).await;
        let cfd: Vec<&Value> = f["cumulativeFlow"].as_array().unwrap().iter().map(|d| &d["counts"]).collect();
        assert_eq!(cfd, [&json!({"To do": 1, "Doing": 0, "Done": 0}), &json!({"To do": 2, "Doing": 0, "Done": 0})]);
    }
}
