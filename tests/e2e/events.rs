//! `GET /api/events` (api.md §11): every committed change streamed as
//! server-sent events, in commit order, resumable, and scoped to its workspace.

use std::time::Duration;

use serde_json::{json, Value};
use testkit::sse::{EventStream, Frame};
use testkit::{self as common, on_both_backends, App};

const WAIT: Duration = Duration::from_secs(5);
/// How long a test waits to be sure nothing more comes.
const QUIET: Duration = Duration::from_millis(400);

async fn stream(app: &App, token: &str, query: &str, last: Option<&str>) -> EventStream {
    let path = format!("/api/events?tenant={}{query}", app.tenant);
    EventStream::open(&app.http, &app.base, token, &path, last).await
}

fn id(v: &Value) -> String {
    v["id"].as_str().expect("an id").to_string()
}

/// Checks the contract's `data` fields of each frame against its `id:` line.
fn check_shape(frames: &[Frame], tenant: &str) {
    for f in frames {
        let d = &f.data;
        assert_eq!(d["seq"].as_i64(), f.id, "{f:?}");
        assert_eq!(d["type"], f.event.as_str(), "{f:?}");
        assert_eq!(d["tenantId"], tenant, "{f:?}");
        assert!(d["at"].as_str().is_some_and(|t| t.len() == 24), "{f:?}");
        assert!(d["actorId"].is_string(), "{f:?}");
        assert!(!d["subject"].is_null(), "{f:?}");
    }
    for pair in frames.windows(2) {
        assert_eq!(
            pair[1].id.unwrap(),
            pair[0].id.unwrap() + 1,
            "seqs have no holes"
        );
    }
}

on_both_backends! {
    async fn each_change_streams_one_event_with_its_data(backend) {
        let app = common::spawn_app(backend).await;
        let mut events = stream(&app, &app.token, "", None).await;
        let columns = app.columns().await;
        let (todo, doing) = (id(&columns[0]), id(&columns[1]));

        let review = app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": "Review"}))).await.body;
        app.call("PATCH", &format!("/api/columns/{}", id(&review)), Some(json!({"name": "In review"}))).await;
        let r = app.call("PATCH", "/api/columns/order", Some(json!({"columnIds": [id(&review), todo]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let card = app.card("Ship it").await;
        app.call("PATCH", &format!("/api/cards/{}", id(&card)), Some(json!({"title": "Ship it now"}))).await;
        app.call("PATCH", &format!("/api/cards/{}", id(&card)), Some(json!({"columnId": doing}))).await;
        let comment = app.call("POST", &format!("/api/cards/{}/comments", id(&card)), Some(json!({"content": "It's \"go\" \\ now"}))).await.body;
        app.call("PATCH", &format!("/api/comments/{}", id(&comment)), Some(json!({"content": "Go go"}))).await;
        let form = reqwest::multipart::Form::new().part(
            "files",
            reqwest::multipart::Part::bytes(b"notes\n".to_vec()).file_name("notes.txt"),
        );
        let up = app.http.post(format!("{}/api/cards/{}/attachments", app.base, id(&card)))
            .bearer_auth(&app.token).multipart(form).send().await.unwrap();
        assert_eq!(up.status().as_u16(), 201);
        let attachment: Value = up.json().await.unwrap();
        app.call("DELETE", &format!("/api/attachments/{}", id(&attachment[0])), None).await;
        let other = app.card("Other").await;
        let link = app.call("POST", &format!("/api/cards/{}/relations", id(&card)), Some(json!({"targetId": id(&other), "kind": "BLOCKS"}))).await.body;
        app.call("DELETE", &format!("/api/relations/{}", id(&link)), None).await;
        app.call("DELETE", &format!("/api/comments/{}", id(&comment)), None).await;
        app.call("PATCH", "/api/settings", Some(json!({"tenantId": app.tenant, "allowCrossProjectLinks": true}))).await;
        // `other` was born in Review, first since the reorder: deleting Review moves it.
        let r = app.call("DELETE", &format!("/api/columns/{}", id(&review)), Some(json!({"cards": "MOVE", "targetColumnId": todo}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        app.call("DELETE", &format!("/api/cards/{}", id(&card)), None).await;

        let frames = events.take(17, WAIT).await;
        let kinds: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
        assert_eq!(kinds, [
            "column.created", "column.updated", "columns.reordered", "card.created",
            "card.updated", "card.moved", "comment.created", "comment.updated",
            "attachment.created", "attachment.deleted", "card.created", "relation.created",
            "relation.deleted", "comment.deleted", "settings.updated",
            "column.deleted", "card.deleted",
        ], "{frames:#?}");
        check_shape(&frames, &app.tenant);
        let by = |i: usize| &frames[i].data;
        assert_eq!(by(0)["subject"]["name"], "Review");
        assert_eq!(by(1)["subject"]["name"], "In review");
        let reordered: Vec<String> = by(2)["subject"].as_array().unwrap().iter().map(id).collect();
        assert_eq!(reordered.len(), 2);
        assert!(reordered.contains(&id(&review)) && reordered.contains(&todo));
        assert_eq!(by(3)["subject"]["id"], card["id"]);
        assert_eq!(by(4)["subject"]["title"], "Ship it now");
        assert_eq!(by(5)["subject"]["columnId"], doing.as_str());
        assert_eq!(by(5)["fromColumnId"], review["id"], "a new card lands in the first column");
        assert_eq!(by(6)["subject"]["content"], "It's \"go\" \\ now", "quotes and backslashes survive");
        assert_eq!(by(7)["subject"]["content"], "Go go");
        assert_eq!(by(8)["subject"]["originalName"], "notes.txt");
        assert_eq!(by(9)["subject"], json!({"id": attachment[0]["id"]}));
        assert_eq!(by(11)["subject"]["kind"], "BLOCKS");
        assert_eq!(by(12)["subject"], json!({"id": link["id"]}));
        assert_eq!(by(13)["subject"], json!({"id": comment["id"]}));
        assert_eq!(by(14)["subject"]["allowCrossProjectLinks"], true);
        assert_eq!(by(15)["subject"], json!({"id": review["id"]}));
        assert_eq!(by(15)["cards"], "MOVE");
        assert_eq!(by(15)["targetColumnId"], todo.as_str());
        assert_eq!(by(15)["cardsMoved"], 1);
        assert_eq!(by(15)["cardsDeleted"], 0);
        assert_eq!(by(16)["subject"], json!({"id": card["id"]}));
        assert!(events.next(QUIET).await.is_none(), "one event per change");
    }

    async fn moves_racing_into_one_column_stream_the_positions_they_answer(backend) {
        // On PostgreSQL a move to a column's end takes its place in the commit
        // (`Lock::ColumnGate`): its event's position is written there too.
        let app = std::sync::Arc::new(common::spawn_app(backend).await);
        let mut events = stream(&app, &app.token, "", None).await;
        let done = id(&app.columns().await[2]);
        let mut cards = Vec::new();
        for i in 0..8 {
            cards.push(id(&app.card(&format!("Card {i}")).await));
        }
        let created = events.take(8, WAIT).await;
        assert_eq!(created.len(), 8);
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(cards.len()));
        let tasks: Vec<_> = cards.iter().map(|card| {
            let (app, barrier, done) = (app.clone(), barrier.clone(), done.clone());
            let path = format!("/api/cards/{card}");
            tokio::spawn(async move {
                barrier.wait().await;
                app.call("PATCH", &path, Some(json!({"columnId": done}))).await
            })
        }).collect();
        let mut answered = std::collections::HashMap::new();
        for t in tasks {
            let r = t.await.unwrap();
            assert_eq!(r.status, 200, "{:?}", r.body);
            answered.insert(id(&r.body), r.body);
        }
        let mut positions: Vec<i64> = answered.values().map(|c| c["position"].as_i64().unwrap()).collect();
        positions.sort_unstable();
        positions.dedup();
        assert_eq!(positions.len(), 8, "one position each: {answered:?}");
        let frames = events.take(8, WAIT).await;
        assert_eq!(frames.len(), 8);
        let mut last = 0;
        for f in &frames {
            assert_eq!(f.event, "card.moved");
            let subject = &f.data["subject"];
            assert_eq!(subject, &answered[&id(subject)], "the event's card is the answer's");
            let position = subject["position"].as_i64().unwrap();
            assert!(position > last, "each move, in commit order, lands after the ones before");
            last = position;
        }
        let mut board = app.call("GET", &format!("/api/cards/{}", cards[0]), None).await;
        board.body.as_object_mut().unwrap().remove("watching");
        assert_eq!(board.body, answered[&cards[0]]);
    }

    async fn refused_requests_emit_nothing(backend) {
        let app = common::spawn_app(backend).await;
        // Made before the stream opens: adding a member is an event (§23).
        let viewer = app.account_in(&app.tenant, "viewer", "viewer").await;
        let mut events = stream(&app, &app.token, "", None).await;
        let columns = app.columns().await;
        let refused = [
            app.call("POST", "/api/cards", Some(json!({"tenantId": app.tenant}))).await.status,
            app.call_as(&viewer, "POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "no"}))).await.status,
            app.call("DELETE", &format!("/api/columns/{}", id(&columns[2])), Some(json!({"cards": "MOVE", "targetColumnId": id(&columns[0])}))).await.status,
            app.call("PATCH", &format!("/api/columns/{}", id(&columns[2])), Some(json!({"done": false}))).await.status,
        ];
        assert_eq!(refused, [422, 403, 422, 422]);
        let card = app.card("Accepted").await;
        let first = events.next(WAIT).await.expect("the accepted change's event");
        assert_eq!(first.event, "card.created");
        assert_eq!(first.data["subject"]["id"], card["id"]);
        assert!(events.next(QUIET).await.is_none());
    }

    async fn another_workspace_stream_sees_nothing(backend) {
        let app = common::spawn_app(backend).await;
        let other = app.workspace("Other").await;
        let outsider = app.account_in(&other, "outsider", "viewer").await;
        let path = format!("/api/events?tenant={other}");
        let mut theirs = EventStream::open(&app.http, &app.base, &outsider, &path, None).await;
        app.card("Ours").await;
        app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": "Ours"}))).await;
        let card = app.card_in(&other, "Theirs").await;
        let first = theirs.next(WAIT).await.expect("their own change");
        assert_eq!(first.data["subject"]["id"], card["id"]);
        assert_eq!(first.data["tenantId"], other.as_str());
        // Nor may they open a stream of a workspace they do not reach.
        let r = app.call_as(&outsider, "GET", &format!("/api/events?tenant={}", app.tenant), None).await;
        assert_eq!(r.status, 403);
        assert_eq!(app.call("GET", "/api/events", None).await.status, 422);
        assert_eq!(app.call_as("", "GET", &format!("/api/events?tenant={}", app.tenant), None).await.status, 401);
    }

    async fn resume_replays_exactly_the_missed_events(backend) {
        let app = common::spawn_app(backend).await;
        let mut live = stream(&app, &app.token, "", None).await;
        for title in ["one", "two", "three", "four"] {
            app.card(title).await;
        }
        let seen = live.take(4, WAIT).await;
        let seqs: Vec<i64> = seen.iter().map(|f| f.id.unwrap()).collect();
        let titles = |frames: &[Frame]| -> Vec<String> {
            frames.iter().map(|f| f.data["subject"]["title"].as_str().unwrap().to_string()).collect()
        };

        // By header, as a reconnecting EventSource does.
        let last = seqs[1].to_string();
        let mut by_header = stream(&app, &app.token, "", Some(&last)).await;
        assert_eq!(titles(&by_header.take(2, WAIT).await), ["three", "four"]);
        assert!(by_header.next(QUIET).await.is_none(), "no duplicate");
        // By query.
        let mut by_query = stream(&app, &app.token, &format!("&after={}", seqs[0]), None).await;
        assert_eq!(titles(&by_query.take(3, WAIT).await), ["two", "three", "four"]);
        // The header wins over the query the page's URL still carries.
        let last = seqs[2].to_string();
        let mut both = stream(&app, &app.token, &format!("&after={}", seqs[0]), Some(&last)).await;
        assert_eq!(titles(&both.take(1, WAIT).await), ["four"]);
        // Then the live ones, with no gap.
        app.card("five").await;
        assert_eq!(titles(&by_header.take(1, WAIT).await), ["five"]);
        assert_eq!(titles(&by_query.take(1, WAIT).await), ["five"]);
        assert_eq!(titles(&both.take(1, WAIT).await), ["five"]);
        let r = app.call("GET", &format!("/api/events?tenant={}&after=x", app.tenant), None).await;
        assert_eq!(r.status, 422);
    }

    async fn an_event_committed_before_a_restart_is_replayed_after_it(backend) {
        let mut app = common::spawn_app(backend).await;
        let mut live = stream(&app, &app.token, "", None).await;
        app.card("before").await;
        let before = live.next(WAIT).await.expect("event");
        let card = app.card("just before the restart").await;
        drop(live);
        app.stop().await;
        app.start().await;
        let last = before.id.unwrap().to_string();
        let mut resumed = stream(&app, &app.token, "", Some(&last)).await;
        let replayed = resumed.next(WAIT).await.expect("replayed after the restart");
        assert_eq!(replayed.data["subject"]["id"], card["id"]);
        assert_eq!(replayed.id, Some(before.id.unwrap() + 1));
    }

    async fn a_resume_from_before_retention_starts_with_reset(backend) {
        let app = common::spawn_app(backend).await;
        for title in ["old", "older", "newest"] {
            app.card(title).await;
        }
        // Everything is past retention; the newest event stays (it carries the head).
        app.board().await.admin().prune_events(Duration::ZERO, Duration::ZERO).await.unwrap();
        let mut resumed = stream(&app, &app.token, "", Some("0")).await;
        let first = resumed.next(WAIT).await.expect("reset");
        assert_eq!(first.event, "reset");
        let kept = resumed.next(WAIT).await.expect("the retained event");
        assert_eq!(kept.data["subject"]["title"], "newest");
        let card = app.card("new").await;
        let next = resumed.next(WAIT).await.expect("the live event after the reset");
        assert_eq!(next.data["subject"]["id"], card["id"]);
        assert_eq!(next.id, Some(kept.id.unwrap() + 1));
        // A resume from within what is kept gets no reset.
        let last = kept.id.unwrap().to_string();
        let mut within = stream(&app, &app.token, "", Some(&last)).await;
        assert_eq!(within.next(WAIT).await.expect("event").data["subject"]["id"], card["id"]);
    }

    async fn a_revoked_token_stream_ends(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_EVENTS_RECHECK", "1s")]).await;
        let token = app.account_in(&app.tenant, "leaver", "viewer").await;
        let mut events = stream(&app, &token, "", None).await;
        assert!(!events.ends_within(Duration::from_millis(1500)).await, "a valid stream stays open");
        let id = board_core::TokenId::from_token_or_id(&token).unwrap();
        app.board().await.admin().revoke_token(&id).await.unwrap();
        assert!(events.ends_within(Duration::from_secs(5)).await, "the stream ends after the revocation");
    }

    async fn a_change_through_another_server_reaches_the_stream_within_a_second(backend) {
        let app = common::spawn_app(backend).await;
        // Another server on the same database: its own pool and feed.
        let other = app.second_server().await;
        let mut events = stream(&app, &app.token, "", None).await;
        let started = std::time::Instant::now();
        let r = common::request(&app.http, &other.base, &app.token, "POST", "/api/cards",
            Some(json!({"tenantId": app.tenant, "title": "from B"}))).await;
        assert_eq!(r.status, 201);
        let frame = events.next(WAIT).await.expect("the event from the other server");
        assert_eq!(frame.data["subject"]["id"], r.body["id"]);
        assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    }
}

#[tokio::test]
async fn the_stream_cap_answers_503() {
    let app =
        common::spawn_app_with(common::Backend::Sqlite, &[("BOARD_MAX_EVENT_STREAMS", "1")]).await;
    let _first = stream(&app, &app.token, "", None).await;
    let r = app
        .call("GET", &format!("/api/events?tenant={}", app.tenant), None)
        .await;
    assert_eq!(r.status, 503, "{:?}", r.body);
    assert_eq!(r.body["error"], "UNAVAILABLE");
}

/// PostgreSQL takes event seqs with no lock, so a smaller seq can commit after
/// a larger one. A stream must deliver it, first, and never skip it: nothing
/// after a running writer's seq is read until that writer has finished.
#[tokio::test]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn a_smaller_seq_that_commits_late_is_delivered_first_and_never_skipped() {
    use sqlx::{Connection, Row};
    let app = common::spawn_app(common::Backend::Postgres).await;
    let mut events = stream(&app, &app.token, "", None).await;
    // A writer that has taken its xid and then its seq, as a write does in
    // its commit message, and has not committed yet.
    let mut slow = sqlx::PgConnection::connect(&app.db.url).await.unwrap();
    sqlx::raw_sql("BEGIN; SELECT pg_current_xact_id()")
        .execute(&mut slow)
        .await
        .unwrap();
    let data = json!({"type": "card.deleted", "tenantId": app.tenant,
        "at": "2026-11-24T00:00:00.000Z", "actorId": null, "subject": {"id": "slow"}});
    let slow_seq: i64 = sqlx::query(
        "INSERT INTO events (seq, workspace_id, type, at, data) \
         VALUES (nextval('events_seq'), $1, 'card.deleted', '2026-11-24T00:00:00.000Z', $2) \
         RETURNING seq",
    )
    .bind(&app.tenant)
    .bind(data.to_string())
    .fetch_one(&mut slow)
    .await
    .unwrap()
    .get("seq");
    // A later change commits meanwhile, with the larger seq.
    let card = app.card("fast").await;
    assert!(
        events.next(QUIET).await.is_none(),
        "nothing after the running writer's seq is sent before it commits"
    );
    sqlx::raw_sql("COMMIT").execute(&mut slow).await.unwrap();
    let first = events.next(WAIT).await.expect("the late commit's event");
    assert_eq!(first.id, Some(slow_seq), "{first:?}");
    assert_eq!(first.data["subject"]["id"], "slow");
    let second = events.next(WAIT).await.expect("the card's event");
    assert_eq!(second.id, Some(slow_seq + 1), "{second:?}");
    assert_eq!(second.data["subject"]["id"], card["id"]);
    // A stream opened now replays both, in seq order.
    let mut replay = stream(&app, &app.token, &format!("&after={}", slow_seq - 1), None).await;
    let both = replay.take(2, WAIT).await;
    assert_eq!(
        both.iter().map(|f| f.id.unwrap()).collect::<Vec<_>>(),
        [slow_seq, slow_seq + 1]
    );
}
