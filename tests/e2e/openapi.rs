//! `GET /api/openapi.json` against the routes the server really serves.
//!
//! The server builds its router and its document from one route table. The
//! test compares the document with the contract's list of routes (so a route
//! left out of the table fails it), then asks the running server every method
//! of every path: a method a path does not have gets 405 (with `Allow`), one it
//! has gets anything else, with a status its operation documents.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use testkit as common;

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// A template with every parameter written `{}`.
fn normalized(template: &str) -> String {
    template
        .split('/')
        .map(|s| if s.starts_with('{') { "{}" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

/// Every `warp::path!(…)` in the server's route code, as a normalized template.
/// Every route docs/api.md describes, as
/// method and path template: the server's route table must serve exactly
/// these, so a handler left out of the table fails here.
const CONTRACT: &[(&str, &str)] = &[
    ("GET", "/healthz"),
    ("HEAD", "/healthz"),
    ("GET", "/metrics"),
    ("GET", "/api/openapi.json"),
    ("GET", "/api/settings"),
    ("PATCH", "/api/settings"),
    ("GET", "/api/columns"),
    ("POST", "/api/columns"),
    ("PATCH", "/api/columns/order"),
    ("PATCH", "/api/columns/{}"),
    ("DELETE", "/api/columns/{}"),
    ("GET", "/api/cards"),
    ("POST", "/api/cards"),
    ("GET", "/api/cards/{}"),
    ("PATCH", "/api/cards/{}"),
    ("DELETE", "/api/cards/{}"),
    ("GET", "/api/cards/{}/history"),
    ("GET", "/api/cards/{}/activity"),
    ("GET", "/api/activity"),
    ("POST", "/api/cards/{}/archive"),
    ("POST", "/api/cards/{}/restore"),
    ("GET", "/api/board"),
    ("GET", "/api/flow"),
    ("GET", "/api/search"),
    ("POST", "/api/markdown"),
    ("GET", "/api/cards/{}/comments"),
    ("POST", "/api/cards/{}/comments"),
    ("PATCH", "/api/comments/{}"),
    ("DELETE", "/api/comments/{}"),
    ("POST", "/api/cards/{}/comments/uploads"),
    ("GET", "/api/cards/{}/attachments"),
    ("POST", "/api/cards/{}/attachments"),
    ("DELETE", "/api/attachments/{}"),
    ("GET", "/api/files/{}"),
    ("GET", "/api/cards/{}/relations"),
    ("POST", "/api/cards/{}/relations"),
    ("DELETE", "/api/relations/{}"),
    ("GET", "/api/members"),
    ("PATCH", "/api/members/{}"),
    ("DELETE", "/api/members/{}"),
    ("POST", "/api/projects"),
    ("PATCH", "/api/projects/{}"),
    ("POST", "/api/session"),
    ("DELETE", "/api/session"),
    ("GET", "/api/me"),
    ("PATCH", "/api/me"),
    ("DELETE", "/api/me/identities/{}"),
    ("GET", "/api/auth"),
    ("GET", "/api/auth/oidc/start"),
    ("GET", "/api/auth/oidc/callback"),
    ("GET", "/api/me/notifications"),
    ("PATCH", "/api/me/notifications"),
    ("POST", "/api/email/verify"),
    ("GET", "/api/mail/unsubscribe"),
    ("POST", "/api/mail/unsubscribe"),
    ("POST", "/api/password-reset/request"),
    ("GET", "/api/tokens"),
    ("POST", "/api/tokens"),
    ("DELETE", "/api/tokens/{}"),
    ("GET", "/api/invitations"),
    ("POST", "/api/invitations"),
    ("DELETE", "/api/invitations/{}"),
    ("POST", "/api/invitations/accept"),
    ("POST", "/api/password-reset"),
    ("POST", "/api/password-reset/account"),
    ("GET", "/api/labels"),
    ("POST", "/api/labels"),
    ("PATCH", "/api/labels/{}"),
    ("DELETE", "/api/labels/{}"),
    ("PUT", "/api/cards/{}/labels/{}"),
    ("DELETE", "/api/cards/{}/labels/{}"),
    ("PUT", "/api/cards/{}/assignees/{}"),
    ("DELETE", "/api/cards/{}/assignees/{}"),
    ("PUT", "/api/cards/{}/watch"),
    ("DELETE", "/api/cards/{}/watch"),
    ("GET", "/api/notifications"),
    ("GET", "/api/notifications/count"),
    ("POST", "/api/notifications/read"),
    ("GET", "/api/cards/{}/checklist"),
    ("POST", "/api/cards/{}/checklist"),
    ("PATCH", "/api/checklist/{}"),
    ("DELETE", "/api/checklist/{}"),
    ("GET", "/api/events"),
    ("GET", "/api/webhooks"),
    ("POST", "/api/webhooks"),
    ("PATCH", "/api/webhooks/{}"),
    ("DELETE", "/api/webhooks/{}"),
    ("GET", "/api/webhooks/{}/deliveries"),
    ("POST", "/api/imports/trello"),
];

fn documented(doc: &Value) -> BTreeMap<String, BTreeSet<String>> {
    doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, item)| {
            let methods = item
                .as_object()
                .unwrap()
                .keys()
                .filter(|m| METHODS.contains(&m.to_uppercase().as_str()))
                .map(|m| m.to_uppercase())
                .collect();
            (normalized(path), methods)
        })
        .collect()
}

/// The methods the document gives a concrete path: those of the template it
/// matches with the most literal segments (`/api/columns/order` is the order
/// route's, not a column id).
fn methods_for(concrete: &str, doc: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let got: Vec<&str> = concrete.split('/').collect();
    doc.iter()
        .filter_map(|(template, methods)| {
            let want: Vec<&str> = template.split('/').collect();
            let matches =
                want.len() == got.len() && want.iter().zip(&got).all(|(w, g)| *w == "{}" || w == g);
            matches.then(|| (want.iter().filter(|w| **w != "{}").count(), methods))
        })
        .max_by_key(|(literal, _)| *literal)
        .map(|(_, methods)| methods.clone())
        .unwrap_or_default()
}

fn is_public(doc: &Value, path: &str, method: &str) -> bool {
    let op = &doc["paths"][path][method.to_lowercase()];
    // An operation without `security` of its own has the document's.
    let security = op.get("security").unwrap_or(&doc["security"]);
    // The requirements are alternatives: an empty one lets a request without
    // a credential through (POST /api/invitations/accept takes either).
    security
        .as_array()
        .is_some_and(|reqs| reqs.iter().any(|r| r.as_object().unwrap().is_empty()))
}

#[tokio::test]
async fn the_document_names_exactly_the_routes_served() {
    let app = common::spawn_app(common::Backend::Sqlite).await;
    let res = app.call_as("", "GET", "/api/openapi.json", None).await;
    assert_eq!(res.status, 200, "the document needs no credential");
    let doc = res.body;
    assert_eq!(doc["openapi"], "3.1.0");
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["bearer"]["scheme"], "bearer", "{schemes}");
    assert_eq!(schemes["cookie"]["in"], "cookie", "{schemes}");
    assert_eq!(schemes["cookie"]["name"], "board_session", "{schemes}");

    let contract: BTreeSet<(String, String)> = CONTRACT
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    let operations: BTreeSet<(String, String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .filter(|m| !m.starts_with("x-") && *m != "parameters")
                .map(|m| (m.to_uppercase(), normalized(path)))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        contract.difference(&operations).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "routes of the contract the server does not serve (missing from the route table)"
    );
    assert_eq!(
        operations.difference(&contract).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "routes the server serves that the contract does not have"
    );
    let methods = documented(&doc);
    let in_doc: BTreeSet<String> = methods.keys().cloned().collect();

    let mut probed = 0;
    for path in doc["paths"].as_object().unwrap().keys() {
        let concrete = normalized(path).replace("{}", &cuid2::create_id());
        let expected = methods_for(&normalized(path), &methods);
        for method in METHODS {
            let res = app.call_as("", method, &concrete, None).await;
            probed += 1;
            let route_missing = res.status == 404 && res.body["message"] == "no such route";
            if expected.contains(method) {
                assert!(
                    res.status != 405 && !route_missing,
                    "{method} {path} is documented but not served: {} {}",
                    res.status,
                    res.body
                );
            } else {
                assert_eq!(
                    res.status, 405,
                    "{method} {path} is served but not documented: {}",
                    res.body
                );
            }
            if methods[&normalized(path)].contains(method) {
                let public = is_public(&doc, path, method);
                assert_eq!(
                    res.status != 401,
                    public,
                    "{method} {path}: the document's security and the server disagree ({})",
                    res.status
                );
                let responses = &doc["paths"][path][method.to_lowercase()]["responses"];
                assert!(
                    responses.get(res.status.to_string()).is_some(),
                    "{method} {path} answered {}, which the document does not list",
                    res.status
                );
            }
        }
    }
    assert_eq!(probed, in_doc.len() * METHODS.len());
}

#[tokio::test]
async fn a_405_names_the_methods_of_the_path() {
    let app = common::spawn_app(common::Backend::Sqlite).await;
    let res = app
        .http
        .put(format!("{}/api/columns", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 405);
    assert_eq!(res.headers()["allow"], "GET, POST");
    let res = app
        .http
        .get(format!("{}/api/columns/order", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 405);
    assert_eq!(res.headers()["allow"], "PATCH");
}

#[tokio::test]
async fn the_document_describes_conditional_requests() {
    let app = common::spawn_app(common::Backend::Sqlite).await;
    let doc = app.call_as("", "GET", "/api/openapi.json", None).await.body;
    let header_param = |op: &Value, name: &str| {
        op["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["in"] == "header" && p["name"] == name)
    };
    for path in [
        "/api/board",
        "/api/columns",
        "/api/cards/{id}",
        "/api/cards/{id}/comments",
        "/api/cards/{id}/history",
        "/api/cards/{id}/relations",
        "/api/cards/{id}/attachments",
    ] {
        let op = &doc["paths"][path]["get"];
        assert!(
            header_param(op, "If-None-Match"),
            "GET {path}: If-None-Match"
        );
        assert!(
            op["responses"]["200"]["headers"]["ETag"].is_object(),
            "GET {path}: ETag on 200"
        );
        assert!(
            op["responses"]["304"]["headers"]["ETag"].is_object(),
            "GET {path}: 304"
        );
    }
    for path in ["/api/cards/{id}", "/api/comments/{id}"] {
        let op = &doc["paths"][path]["patch"];
        assert!(header_param(op, "If-Match"), "PATCH {path}: If-Match");
        assert!(op["responses"]["412"].is_object(), "PATCH {path}: 412");
        assert!(
            op["responses"]["200"]["headers"]["ETag"].is_object(),
            "PATCH {path}: ETag on 200"
        );
    }
    let post = &doc["paths"]["/api/cards/{id}/comments"]["post"];
    assert!(post["responses"]["201"]["headers"]["ETag"].is_object());
}

// Every operation that reads a JSON body documents 415, and one whose path
// names no resource (nothing to find first) answers it to a text/plain body.
#[tokio::test]
async fn every_json_body_documents_and_answers_415() {
    let app = common::spawn_app(common::Backend::Sqlite).await;
    let doc = app.call_as("", "GET", "/api/openapi.json", None).await.body;
    let mut answered = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if op["requestBody"]["content"]
                .get("application/json")
                .is_none()
            {
                continue;
            }
            let listed = &op["responses"]["415"];
            assert!(listed.is_object(), "{method} {path} does not list 415");
            if path.contains('{') {
                continue;
            }
            let res = app
                .raw(
                    &method.to_uppercase(),
                    path,
                    &[
                        ("authorization", &format!("Bearer {}", app.token)),
                        ("content-type", "text/plain"),
                    ],
                    "{}",
                )
                .await;
            assert_eq!(res.status, 415, "{method} {path}: {}", res.body);
            assert_eq!(res.body["error"], "UNSUPPORTED_MEDIA_TYPE");
            answered += 1;
        }
    }
    assert!(answered >= 8, "{answered}");
}

/// Every `allOf` of the document can be met: its parts do not ask for two
/// types at once (a required file field once came out as a string and an
/// object, which a fuzzer cannot generate and no client can send).
#[tokio::test]
async fn no_schema_asks_for_two_types_at_once() {
    fn walk(v: &Value, at: &str, bad: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                if let Some(Value::Array(parts)) = map.get("allOf") {
                    let types: BTreeSet<String> = parts
                        .iter()
                        .filter_map(|p| p.get("type"))
                        .map(|t| t.to_string())
                        .collect();
                    if types.len() > 1 {
                        bad.push(format!("{at}: {types:?}"));
                    }
                }
                for (k, x) in map {
                    walk(x, &format!("{at}/{k}"), bad);
                }
            }
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    walk(x, &format!("{at}/{i}"), bad);
                }
            }
            _ => {}
        }
    }
    let app = common::spawn_app(common::Backend::Sqlite).await;
    let doc = app.call_as("", "GET", "/api/openapi.json", None).await.body;
    let mut bad = Vec::new();
    walk(&doc, "", &mut bad);
    assert!(bad.is_empty(), "{bad:#?}");
}
