//! The route table, built once from the declared routes: it matches a
//! request to its route (the only place a path is matched), answers 404 and
//! 405 (with `Allow`), labels the reply with its route template, and holds
//! the OpenAPI document made from the same declarations.

use std::sync::OnceLock;

use utoipa::openapi::path::{Operation, PathItem};
use utoipa::openapi::OpenApi as Document;
use warp::http::{HeaderValue, Method, StatusCode};
use warp::reply::Response;

use super::{Handler, Request};
use crate::error::ApiError;

/// One declared route: a method on a path template, and its handler.
pub struct Route {
    method: Method,
    template: String,
    operation_id: String,
    handler: Handler,
    doc: Document,
}

impl Route {
    /// A route from the one-operation document its `#[utoipa::path]` makes.
    ///
    /// # Panics
    /// When the document does not hold exactly one operation (a declaration
    /// error, caught by the first request or test).
    pub(super) fn new(doc: Document, handler: Handler) -> Route {
        let found: Vec<(String, Method, String)> = doc
            .paths
            .paths
            .iter()
            .flat_map(|(template, item)| {
                operations(item).map(move |(method, op)| {
                    let id = op.operation_id.clone().unwrap_or_default();
                    (template.clone(), method, id)
                })
            })
            .collect();
        let [(template, method, operation_id)]: [_; 1] = found
            .try_into()
            .unwrap_or_else(|f: Vec<_>| panic!("a route declares one operation, not {}", f.len()));
        Route {
            method,
            template,
            operation_id,
            handler,
            doc,
        }
    }

    /// The method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The path template (`/api/cards/{id}/history`).
    pub fn template(&self) -> &str {
        &self.template
    }

    /// The OpenAPI operation id (`cardHistory`).
    pub fn operation_id(&self) -> &str {
        &self.operation_id
    }
}

/// The order methods are listed in (`Allow`, preflight answers).
const METHOD_ORDER: [Method; 8] = [
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::OPTIONS,
    Method::TRACE,
];

fn operations(item: &PathItem) -> impl Iterator<Item = (Method, &Operation)> {
    [
        (Method::GET, &item.get),
        (Method::HEAD, &item.head),
        (Method::POST, &item.post),
        (Method::PUT, &item.put),
        (Method::PATCH, &item.patch),
        (Method::DELETE, &item.delete),
        (Method::OPTIONS, &item.options),
        (Method::TRACE, &item.trace),
    ]
    .into_iter()
    .filter_map(|(m, op)| op.as_ref().map(|op| (m, op)))
}

/// The route template a reply was routed by, in its extensions (read by the
/// request log and the metrics).
#[derive(Debug, Clone, Copy)]
pub struct RouteTemplate(pub &'static str);

/// The routes of one path template.
struct PathRoutes {
    template: String,
    /// The template's segments; `None` for a parameter.
    segments: Vec<Option<String>>,
    routes: Vec<Route>,
    /// The methods, for `Allow` (`GET, POST`).
    allow: String,
}

/// Every route of the server, by path template, with its document.
pub struct Table {
    paths: Vec<PathRoutes>,
    document: String,
}

/// The table, built on first use from the declarations.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table::build(super::declared()))
}

/// The path's segments, without the leading slash.
fn split(path: &str) -> Vec<&str> {
    let path = path.strip_prefix('/').unwrap_or(path);
    path.split('/').collect()
}

/// Whether a segment of a request's path may match at all: a path is matched
/// exactly, so an empty segment (a trailing or doubled slash), a `.` or `..`
/// segment (percent-encoded too) and an encoded slash or backslash make
/// another path, which no route has. No check keyed on a route's path can
/// then be walked around by spelling the path differently.
fn plain(segment: &str) -> bool {
    let lower = segment.to_ascii_lowercase();
    let decoded_dots = lower.replace("%2e", ".");
    !segment.is_empty()
        && decoded_dots != "."
        && decoded_dots != ".."
        && !lower.contains("%2f")
        && !lower.contains("%5c")
}

impl Table {
    fn build(routes: Vec<Route>) -> Table {
        let mut doc = crate::openapi::base();
        let mut paths: Vec<PathRoutes> = Vec::new();
        for route in routes {
            doc.merge(route.doc.clone());
            match paths.iter_mut().find(|p| p.template == route.template) {
                Some(p) => p.routes.push(route),
                None => paths.push(PathRoutes {
                    segments: split(&route.template)
                        .into_iter()
                        .map(|s| (!s.starts_with('{')).then(|| s.to_string()))
                        .collect(),
                    template: route.template.clone(),
                    routes: vec![route],
                    allow: String::new(),
                }),
            }
        }
        for p in &mut paths {
            p.routes
                .sort_by_key(|r| METHOD_ORDER.iter().position(|m| *m == r.method));
            let methods: Vec<&str> = p.routes.iter().map(|r| r.method.as_str()).collect();
            p.allow = methods.join(", ");
        }
        crate::openapi::finish(&mut doc);
        let document = doc.to_json().expect("the document serializes");
        Table { paths, document }
    }

    /// The OpenAPI document of every route, as JSON.
    pub fn document(&self) -> &str {
        &self.document
    }

    /// Every route, by path template in declaration order.
    pub fn routes(&self) -> impl Iterator<Item = &Route> {
        self.paths.iter().flat_map(|p| &p.routes)
    }

    /// The routes of the path, with its parameters (joined by `/` when there
    /// are several: `Request::path_ids`): a literal segment wins over a
    /// parameter (`/api/columns/order` is not a column id).
    fn find<'p>(&self, path: &'p str) -> Option<(&PathRoutes, String)> {
        let got = split(path);
        if !got.iter().all(|s| plain(s)) {
            return None;
        }
        let mut best: Option<(usize, &PathRoutes, Vec<&'p str>)> = None;
        'paths: for p in &self.paths {
            if p.segments.len() != got.len() {
                continue;
            }
            let (mut literal, mut param) = (0, Vec::new());
            for (want, seg) in p.segments.iter().zip(&got) {
                match want {
                    None => param.push(*seg),
                    Some(w) if w == seg => literal += 1,
                    Some(_) => continue 'paths,
                }
            }
            if best.as_ref().is_none_or(|(l, _, _)| literal > *l) {
                best = Some((literal, p, param));
            }
        }
        best.map(|(_, p, param)| (p, param.join("/")))
    }

    /// The template and `Allow` methods of the path, if the table has it.
    pub fn allow(&'static self, path: &str) -> Option<(&'static str, &'static str)> {
        let (p, _) = self.find(path)?;
        Some((p.template.as_str(), p.allow.as_str()))
    }

    /// Routes the request: the handler's reply (or its error as the JSON error
    /// reply), labelled with the route template; 404 for a path the table
    /// does not have, 405 with `Allow` for a method its route does not serve.
    pub async fn dispatch(
        &'static self,
        method: &Method,
        path: &str,
        request: impl FnOnce(String) -> Request,
    ) -> Response {
        let Some((p, param)) = self.find(path) else {
            return ApiError::Http(StatusCode::NOT_FOUND, "NOT_FOUND", "no such route".into())
                .into_response();
        };
        let mut response = match p.routes.iter().find(|r| r.method == *method) {
            Some(route) => (route.handler)(request(param))
                .await
                .unwrap_or_else(ApiError::into_response),
            None => {
                let mut r = ApiError::Http(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "METHOD_NOT_ALLOWED",
                    "method not allowed on this route".into(),
                )
                .into_response();
                if let Ok(allow) = HeaderValue::from_str(&p.allow) {
                    r.headers_mut().insert(warp::http::header::ALLOW, allow);
                }
                r
            }
        };
        response
            .extensions_mut()
            .insert(RouteTemplate(p.template.as_str()));
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(path: &str) -> Option<&'static str> {
        table().allow(path).map(|(t, _)| t)
    }

    #[test]
    fn a_path_finds_its_template() {
        let id = "c".repeat(24);
        assert_eq!(
            template(&format!("/api/cards/{id}/history")),
            Some("/api/cards/{id}/history")
        );
        assert_eq!(
            template(&format!("/api/cards/{id}")),
            Some("/api/cards/{id}")
        );
        assert_eq!(template("/api/cards/garbage"), Some("/api/cards/{id}"));
        assert_eq!(template("/api/columns/order"), Some("/api/columns/order"));
        assert_eq!(
            template("/api/files/abc.png"),
            Some("/api/files/{storedName}")
        );
        assert_eq!(template("/api/columns"), Some("/api/columns"));
        assert_eq!(template("/healthz"), Some("/healthz"));
        assert_eq!(template("/a/b/c/d/e/f"), None);
        assert_eq!(template(&format!("/api/cards/{id}/x/y/z")), None);
    }

    #[test]
    fn only_the_exact_spelling_of_a_path_matches() {
        let id = "c".repeat(24);
        for path in [
            "/api/session/".to_string(),
            "/api/session//".to_string(),
            "//api/session".to_string(),
            "/api//session".to_string(),
            "/api/./session".to_string(),
            "/api/x/../session".to_string(),
            "/api/%2e%2E/api/session".to_string(),
            "/api/invitations/accept/".to_string(),
            "/api%2Fsession".to_string(),
            "/api/columns/".to_string(),
            format!("/api/cards/{id}/history/"),
            format!("/api/cards/{id}%2fhistory"),
            "/api/files/..".to_string(),
            "/api/files/a%5Cb".to_string(),
            "/api/cards//history".to_string(),
            "".to_string(),
            "/".to_string(),
        ] {
            assert_eq!(template(&path), None, "{path}");
        }
        assert_eq!(template("/api/session"), Some("/api/session"));
        assert_eq!(
            template("/api/files/a.b.png"),
            Some("/api/files/{storedName}")
        );
    }

    #[test]
    fn allow_lists_the_methods_of_a_path() {
        assert_eq!(table().allow("/api/columns").unwrap().1, "GET, POST");
        assert_eq!(table().allow("/healthz").unwrap().1, "GET, HEAD");
        assert_eq!(table().allow("/api/columns/order").unwrap().1, "PATCH");
    }
}
