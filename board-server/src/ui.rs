//! The board UI (api.md §25): the files of `board-server/ui/`, embedded at
//! compile time, served as they are. The handlers of `/api/` do not know the UI
//! exists; the UI is a client of the public API like any other.
//!
//! - **Assets** (`/assets/<hash>/css/…`, `/assets/<hash>/js/…`): `<hash>` is a
//!   hash of every embedded file, so an asset's URL changes with any change of
//!   the UI and is cached `immutable`. Relative imports inside the modules
//!   resolve under the same prefix. Another hash is 404.
//! - **Pages** (`/`, `/invite`, `/reset`, `/verify`, `/account`, `/w/…`): `index.html`
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
                let body = if path.ends_with(".js") || path.ends_with(".css") {
                    trim(&body)
                } else {
                    body
                };
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

    /// The total size of the JavaScript and CSS, before compression (§29:
    /// at most 200 KB).
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
    matches!(
        path,
        "/" | "/invite" | "/reset" | "/verify" | "/account" | "/me"
    ) || path
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

/// A script or style sheet as it is sent: without the indentation of its
/// lines, its blank lines and the comments that fill whole lines (`//…`,
/// `/* … */`, `/** … */`). The files in the repository keep them for their
/// readers; a browser needs none of it (decisions.md, "The UI's weight").
/// Lines inside a template literal that spans lines are kept as they are.
fn trim(body: &[u8]) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(body) else {
        return body.to_vec();
    };
    let mut out = String::with_capacity(text.len());
    let (mut in_template, mut in_comment) = (false, false);
    for line in text.lines() {
        let ticks = line.matches('`').count() % 2 == 1;
        if in_template {
            out.push_str(line);
            out.push('\n');
            in_template ^= ticks;
            continue;
        }
        let bare = line.trim();
        if in_comment {
            in_comment = !bare.contains("*/");
            continue;
        }
        if bare.is_empty() || bare.starts_with("//") {
            continue;
        }
        if bare.starts_with("/*") {
            in_comment = !bare.contains("*/");
            if !in_comment && bare.ends_with("*/") {
                continue;
            }
            if in_comment {
                continue;
            }
        }
        out.push_str(bare);
        out.push('\n');
        in_template = ticks;
    }
    out.into_bytes()
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
        for page in [
            "/",
            "/invite",
            "/reset",
            "/verify",
            "/account",
            "/me",
            "/w/t1",
            "/w/t1/p/p1",
        ] {
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
    fn trimming_drops_indentation_and_whole_line_comments_only() {
        let js = "// a module\n/** Doc\n * more\n */\nexport function f() {\n\tconst u = \"//x\"; // kept\n\n\t/* one */\n\treturn `a\n  b`;\n}\n";
        let out = String::from_utf8(trim(js.as_bytes())).unwrap();
        assert_eq!(
            out,
            "export function f() {\nconst u = \"//x\"; // kept\nreturn `a\n  b`;\n}\n"
        );
        let css = "/* colours */\n.a {\n  color: red; /* why */\n}\n/*\n  long\n*/\n.b{}\n";
        let out = String::from_utf8(trim(css.as_bytes())).unwrap();
        assert_eq!(out, ".a {\ncolor: red; /* why */\n}\n.b{}\n");
    }

    #[test]
    fn scripts_and_styles_stay_within_200_kb() {
        let bytes = Ui::load().script_and_style_bytes();
        assert!(bytes <= 200_000, "{bytes} bytes of JavaScript and CSS");
    }

    /// The text of `asset` between `start` and the next `end`.
    fn between<'a>(ui: &'a Ui, asset: &str, start: &str, end: &str) -> &'a str {
        let text = std::str::from_utf8(&ui.assets[asset].body).unwrap();
        let from = text
            .find(start)
            .unwrap_or_else(|| panic!("{start} in {asset}"))
            + start.len();
        &text[from..from + text[from..].find(end).unwrap()]
    }

    #[test]
    fn the_ui_knows_every_event_type_the_server_sends() {
        let ui = Ui::load();
        let listed = between(&ui, "js/events.js", "export const EVENTS = `", "`");
        let ui_events: Vec<&str> = listed.split_whitespace().collect();
        assert_eq!(ui_events, board_core::WEBHOOK_EVENTS, "events.js EVENTS");
    }

    #[test]
    fn the_ui_knows_every_accent_token_and_styles_each() {
        let ui = Ui::load();
        let listed = between(&ui, "js/views/columns.js", "export const ACCENTS = [", "]");
        let ui_accents: Vec<&str> = listed
            .split(',')
            .map(|a| a.trim().trim_matches('"'))
            .filter(|a| !a.is_empty())
            .collect();
        assert_eq!(ui_accents, board_core::Accent::ALL, "columns.js ACCENTS");
        let css = std::str::from_utf8(&ui.assets["css/board.css"].body).unwrap();
        for accent in board_core::Accent::ALL {
            assert!(
                css.contains(&format!(".accent-{accent}")),
                "no .accent-{accent} in board.css"
            );
        }
    }

    /// The modules `path` imports, as asset paths.
    fn imports(ui: &Ui, path: &str) -> Vec<String> {
        let text = std::str::from_utf8(&ui.assets[path].body).unwrap();
        let dir: Vec<&str> = path.split('/').collect();
        text.split(" from \"")
            .skip(1)
            .map(|rest| {
                let mut at = dir[..dir.len() - 1].to_vec();
                for part in rest[..rest.find('"').unwrap()].split('/') {
                    match part {
                        "." => {}
                        ".." => drop(at.pop()),
                        name => at.push(name),
                    }
                }
                at.join("/")
            })
            .collect()
    }

    #[test]
    fn no_module_of_the_ui_imports_itself_through_others() {
        let ui = Ui::load();
        let modules: Vec<&String> = ui.assets.keys().filter(|p| p.ends_with(".js")).collect();
        // Depth-first from each module; a module met again on the path is a circle.
        fn walk(ui: &Ui, path: &str, trail: &mut Vec<String>) {
            if let Some(at) = trail.iter().position(|p| p == path) {
                panic!("import circle: {} -> {path}", trail[at..].join(" -> "));
            }
            trail.push(path.to_string());
            for next in imports(ui, path) {
                assert!(
                    ui.assets.contains_key(&next),
                    "{path} imports missing {next}"
                );
                walk(ui, &next, trail);
            }
            trail.pop();
        }
        for module in modules {
            walk(&ui, module, &mut Vec::new());
        }
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
