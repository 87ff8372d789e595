//! CORS from a real browser (api.md §12): a board UI page served from another
//! origin calls the API with `fetch` and the bearer header, in headless
//! Chromium. A page on an origin that is not listed cannot.
//!
//! It needs Chromium (`chromium` on the PATH, or `BOARD_TEST_CHROMIUM`), so it is
//! ignored by a plain `cargo test`; `.ci/run` installs Chromium and runs it:
//! `cargo test --workspace --test e2e chromium:: -- --ignored`.

use std::time::Duration;

use testkit as common;
use tokio::net::TcpListener;
use warp::Filter;

/// The UI page: lists the columns, creates a card and renames it, as a board UI
/// would, then writes what it saw into `#out`.
fn page(api: &str, token: &str, tenant: &str) -> String {
    format!(
        r#"<!doctype html><html><body><pre id="out">pending</pre><script>
const api = "{api}", auth = {{"Authorization": "Bearer {token}"}};
const json = {{...auth, "Content-Type": "application/json"}};
async function run() {{
  const out = {{}};
  let r = await fetch(`${{api}}/api/columns?tenant={tenant}`, {{headers: auth}});
  out.list = r.status;
  out.columns = (await r.json()).length;
  out.requestId = r.headers.get("x-request-id") !== null;
  r = await fetch(`${{api}}/api/cards`, {{method: "POST", headers: json,
      body: JSON.stringify({{tenantId: "{tenant}", title: "from the browser"}})}});
  out.create = r.status;
  const card = await r.json();
  r = await fetch(`${{api}}/api/cards/${{card.id}}`, {{method: "PATCH", headers: json,
      body: JSON.stringify({{title: "renamed in the browser"}})}});
  out.patch = r.status;
  out.title = (await r.json()).title;
  return out;
}}
run().then(o => document.getElementById("out").textContent = JSON.stringify(o))
     .catch(e => document.getElementById("out").textContent = "error: " + e);
</script></body></html>"#
    )
}

/// Serves `html` at `/` on `listener`.
fn serve(listener: TcpListener, html: String) {
    let route = warp::path::end().map(move || warp::reply::html(html.clone()));
    tokio::spawn(warp::serve(route).incoming(listener).run());
}

/// What the page wrote into `#out` after headless Chromium ran it.
async fn run_page(url: &str) -> String {
    let chromium = std::env::var("BOARD_TEST_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let profile = common::TempDir::new();
    let out = tokio::time::timeout(
        Duration::from_secs(90),
        tokio::process::Command::new(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--virtual-time-budget=15000",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(["--dump-dom", url])
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("chromium finished in time")
    .unwrap_or_else(|e| panic!("run {chromium}: {e}"));
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom.find("<pre id=\"out\">").expect("the page") + 14;
    let end = dom[start..].find("</pre>").expect("end of #out") + start;
    dom[start..end].replace("&quot;", "\"")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs headless Chromium: cargo test --workspace --test e2e chromium:: -- --ignored"]
async fn a_ui_on_a_listed_origin_calls_the_api_and_others_cannot() {
    let listed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let other = TcpListener::bind("127.0.0.1:0").await.unwrap();
    // The UI is on `localhost`, the API on `127.0.0.1`: another origin, another site.
    let ui = format!("http://localhost:{}", listed.local_addr().unwrap().port());
    let stranger = format!("http://localhost:{}", other.local_addr().unwrap().port());
    let app =
        common::spawn_app_with(common::Backend::Sqlite, &[("BOARD_ALLOWED_ORIGINS", &ui)]).await;
    let (api, token, tenant) = (app.base.clone(), app.token.clone(), app.tenant.clone());
    serve(listed, page(&api, &token, &tenant));
    serve(other, page(&api, &token, &tenant));

    let text = run_page(&ui).await;
    let seen: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the listed origin's page wrote {text:?}: {e}"));
    assert_eq!(
        seen,
        serde_json::json!({
            "list": 200, "columns": 3, "requestId": true,
            "create": 201, "patch": 200, "title": "renamed in the browser",
        })
    );

    let refused = run_page(&stranger).await;
    assert!(refused.starts_with("error: TypeError"), "{refused}");
    // The preflight was refused, so the browser never sent the POST.
    let board = app.board().await;
    let view = board
        .board(
            &board_core::Actor::Operator,
            &board_core::SetQuery::from_query(Some(&tenant), None).unwrap(),
        )
        .await
        .unwrap();
    let titles: Vec<&str> = view
        .columns
        .iter()
        .flat_map(|c| c.cards.iter().map(|k| k.title.as_str()))
        .collect();
    assert_eq!(titles, ["renamed in the browser"]);
}

/// The live-events page: signs in with the session cookie, follows the
/// workspace with `EventSource` (credentials included), creates a card with
/// `fetch` and the bearer header, and writes the event it received.
fn events_page(api: &str, token: &str, tenant: &str) -> String {
    format!(
        r#"<!doctype html><html><body><pre id="out">pending</pre><script>
const out = document.getElementById("out");
document.cookie = "board_session={token}; path=/";
const events = new EventSource("{api}/api/events?tenant={tenant}", {{withCredentials: true}});
events.onopen = () => fetch("{api}/api/cards", {{method: "POST",
    headers: {{"Authorization": "Bearer {token}", "Content-Type": "application/json"}},
    body: JSON.stringify({{tenantId: "{tenant}", title: "seen live"}})}});
events.addEventListener("card.created", e => {{
  const data = JSON.parse(e.data);
  out.textContent = JSON.stringify({{id: e.lastEventId, type: data.type, title: data.subject.title}});
  events.close();
}});
events.onerror = () => {{ if (out.textContent === "pending") out.textContent = "error"; }};
</script></body></html>"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs headless Chromium: cargo test --workspace --test e2e chromium:: -- --ignored"]
async fn a_ui_on_another_origin_follows_live_events_with_the_cookie() {
    // Another origin (another port) of the same site, so the browser sends the
    // session cookie with the stream's request.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let ui = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let app =
        common::spawn_app_with(common::Backend::Sqlite, &[("BOARD_ALLOWED_ORIGINS", &ui)]).await;
    serve(listener, events_page(&app.base, &app.token, &app.tenant));
    let text = run_page(&ui).await;
    let seen: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("the page wrote {text:?}: {e}"));
    assert_eq!(seen["type"], "card.created", "{seen}");
    assert_eq!(seen["title"], "seen live", "{seen}");
    assert!(
        seen["id"]
            .as_str()
            .is_some_and(|id| id.parse::<i64>().is_ok()),
        "{seen}"
    );
}
