//! The board UI (api.md §25): the files of `board-server/ui/`, embedded at
//! compile time, served as they are. The handlers of `/api/` do not know the UI
//! exists; the UI is a client of the public API like any other.
//!
//! - **Assets** (`/assets/<hash>/css/…`, `/assets/<hash>/js/…`): `<hash>` is a
//!   hash of every embedded file, so an asset's URL changes with any change of
//!   the UI and is cached `immutable`. Relative imports inside the modules
//!   resolve under the same prefix. Another hash is 404.
//! - **Pages** (`/`, `/invite`, `/reset`, `/account`, `/w/…`): `index.html`
//!   with the prefix written in, `no-cache` with an ETag; the router of the
//!   page (`js/router.js`) reads the path.
//! - Every text file is gzip-compressed once, when the server starts, and
//!   served compressed to a client that accepts it.
//! - Every answer carries the CSP of §25, `nosniff` and `Referrer-Policy`.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use include_dir::{include_dir, Dir};
use sha2::{Digest, Sha256};
use warp::http::header::{
    CACHE_CONTROL, CONTENT_ENCODING, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG, IF_NONE_MATCH,
    REFERRER_POLICY, VARY, X_CONTENT_TYPE_OPTIONS,
};
use warp::http::{HeaderMap, HeaderValue, Method, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::routes::RouteTemplate;

/// The UI's files, as they are in the repository.
static FILES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/ui");

/// The Content-Security-Policy of every UI answer (api.md §25).
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self' blob: data:; connect-src 'self'; frame-ancestors 'none'; \
    base-uri 'none'; form-action 'self'";

/// What `index.html` holds where the assets' prefix goes.
const PREFIX_MARK: &str = "{{assets}}";

/// One file, ready to serve.
#[derive(Debug)]
struct File {
    body: bytes::Bytes,
    /// The body gzip-compressed, for text files.
    gzip: Option<bytes::Bytes>,
    content_type: &'static str,
    etag: String,
}

impl File {
    fn new(path: &str, body: Vec<u8>) -> File {
        let content_type = content_type(path);
        let gzip = content_type
            .starts_with("text/")
            .then(|| gzip(&body))
            .or_else(|| content_type.contains("javascript").then(|| gzip(&body)));
        let etag = format!("\"{}\"", &hex(&Sha256::digest(&body))[..20]);
        File {
            body: body.into(),
            gzip: gzip.map(Into::into),
            content_type,
            etag,
        }
    }
}

/// The embedded UI: its assets by path, the page, and the assets' prefix.
#[derive(Debug)]
pub struct Ui {
    /// `/assets/<hash>`.
    prefix: String,
    assets: HashMap<String, File>,
    page: File,
}

impl Ui {
    /// Reads the embedded files, hashes them and compresses the text ones.
    /// A debug build reads them from `board-server/ui/` on disk instead, when
    /// that folder is there, so that an edit shows at the server's next start
    /// without a compile.
    pub fn load() -> Ui {
        let mut files = Vec::new();
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui");
        if cfg!(debug_assertions) && source.is_dir() {
            read_disk(&source, &source, &mut files);
        } else {
            collect(&FILES, &mut files);
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let mut hash = Sha256::new();
        for (path, body) in &files {
            hash.update(path.as_bytes());
            hash.update([0]);
            hash.update((body.len() as u64).to_le_bytes());
            hash.update(body);
        }
        let prefix = format!("/assets/{}", &hex(&hash.finalize())[..16]);
        let mut page = None;
        let mut assets = HashMap::new();
        for (path, body) in files {
            if path == "index.html" {
                let html = String::from_utf8(body).expect("index.html is UTF-8");
                page = Some(File::new(&path, html.replace(PREFIX_MARK, &prefix).into()));
            } else {
                assets.insert(path.clone(), File::new(&path, body));
            }
        }
        Ui {
            prefix,
            assets,
            page: page.expect("ui/index.html is embedded"),
        }
    }

    /// The prefix of the assets' URLs, `/assets/<hash>`.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The total size of the JavaScript and CSS, before compression (§25:
    /// at most 150 KB).
    pub fn script_and_style_bytes(&self) -> usize {
        self.assets
            .iter()
            .filter(|(p, _)| p.ends_with(".js") || p.ends_with(".css"))
            .map(|(_, f)| f.body.len())
            .sum()
    }

    /// What answers `path`, if the UI serves it: an asset, or the page.
    fn find(&self, path: &str) -> Option<(&File, bool)> {
        if let Some(rest) = path.strip_prefix(&self.prefix) {
            return rest
                .strip_prefix('/')
                .and_then(|p| self.assets.get(p))
                .map(|f| (f, true));
        }
        is_page(path).then_some((&self.page, false))
    }
}

/// Whether `path` is one of the UI's pages (api.md §25).
fn is_page(path: &str) -> bool {
    matches!(path, "/" | "/invite" | "/reset" | "/account")
        || path
            .strip_prefix("/w/")
            .is_some_and(|rest| !rest.is_empty() && rest.len() <= 200)
}

/// Serves the UI's files and pages on GET and HEAD; rejects every other
/// request (every request when the UI is off), so that the API's route table
/// answers it.
pub fn filter(
    ui: Option<Arc<Ui>>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    // The method and the path decide, so that an API request is rejected
    // before its headers are copied.
    let found = warp::method().and(warp::path::full()).and_then(
        move |method: Method, path: warp::path::FullPath| {
            let ui = ui
                .clone()
                .filter(|_| method == Method::GET || method == Method::HEAD)
                .filter(|ui| ui.find(path.as_str()).is_some());
            async move { ui.map(|ui| (ui, path)).ok_or_else(warp::reject::not_found) }
        },
    );
    found.untuple_one().and(warp::header::headers_cloned()).map(
        |ui: Arc<Ui>, path: warp::path::FullPath, headers: HeaderMap| {
            let (file, immutable) = ui.find(path.as_str()).expect("found above");
            answer(file, immutable, &headers)
        },
    )
}

/// The answer for `file`: 304 when the client holds its ETag, else the body,
/// compressed when the client accepts gzip.
fn answer(file: &File, immutable: bool, headers: &HeaderMap) -> Response {
    let fresh = headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim() == file.etag || t.trim() == "*")
        });
    let gzip = file.gzip.as_ref().filter(|_| accepts_gzip(headers));
    let mut response = match (fresh, gzip) {
        (true, _) => {
            let mut r = Response::new(Default::default());
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            r
        }
        (false, Some(body)) => {
            let mut r = Response::new(body.clone().into());
            r.headers_mut()
                .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            r
        }
        (false, None) => Response::new(file.body.clone().into()),
    };
    let h = response.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(file.content_type));
    h.insert(
        CACHE_CONTROL,
        HeaderValue::from_static(match immutable {
            true => "public, max-age=31536000, immutable",
            false => "no-cache",
        }),
    );
    if let Ok(etag) = HeaderValue::from_str(&file.etag) {
        h.insert(ETAG, etag);
    }
    if file.gzip.is_some() {
        h.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    }
    h.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    response
        .extensions_mut()
        .insert(RouteTemplate(match immutable {
            true => "/assets/{path}",
            false => "(page)",
        }));
    response
}

/// Whether `Accept-Encoding` names gzip with a weight above zero.
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(warp::http::header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let name = parts.next().unwrap_or("");
            let zero = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !zero
        })
}

fn collect(dir: &Dir<'static>, out: &mut Vec<(String, Vec<u8>)>) {
    for file in dir.files() {
        let path = file.path().to_string_lossy().replace('\\', "/");
        out.push((path, file.contents().to_vec()));
    }
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

fn read_disk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            read_disk(root, &path, out);
        } else if let (Ok(rel), Ok(body)) = (path.strip_prefix(root), std::fs::read(&path)) {
            out.push((rel.to_string_lossy().replace('\\', "/"), body));
        }
    }
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    }
}

fn gzip(body: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(body).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_the_paths_of_section_25() {
        for page in ["/", "/invite", "/reset", "/account", "/w/t1", "/w/t1/p/p1"] {
            assert!(is_page(page), "{page}");
        }
        for other in [
            "/api/board",
            "/healthz",
            "/metrics",
            "/w/",
            "/assets/x/js/app.js",
        ] {
            assert!(!is_page(other), "{other}");
        }
    }

    #[test]
    fn gzip_is_accepted_unless_weighted_zero() {
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(
                warp::http::header::ACCEPT_ENCODING,
                HeaderValue::from_str(v).unwrap(),
            );
            accepts_gzip(&h)
        };
        assert!(with("gzip, deflate, br"));
        assert!(with("br;q=1.0, GZIP;q=0.5"));
        assert!(!with("gzip;q=0"));
        assert!(!with("br"));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn scripts_and_styles_stay_within_150_kb() {
        let bytes = Ui::load().script_and_style_bytes();
        assert!(bytes <= 150_000, "{bytes} bytes of JavaScript and CSS");
    }

    #[test]
    fn the_page_names_the_assets_prefix_and_every_asset_exists() {
        let ui = Ui::load();
        let page = std::str::from_utf8(&ui.page.body).unwrap();
        assert!(!page.contains(PREFIX_MARK));
        for src in page.split(&format!("{}/", ui.prefix())).skip(1) {
            let path = &src[..src.find('"').unwrap()];
            assert!(ui.assets.contains_key(path), "{path} is not embedded");
        }
    }
}
