//! Markdown rendered to safe HTML (api.md §24): what `?html=true` adds to a
//! card's comments (`contentHtml`). The stored text is never altered; the
//! HTML is made on each read.
//!
//! CommonMark with tables, strikethrough, autolinks (`<https://…>`, and bare
//! `https://…`, `http://…` and `www.…` as on GitHub, found by `linkify`, never
//! inside code or a link) and task lists (disabled checkboxes), by
//! `pulldown-cmark`; then sanitised by an allowlist with `ammonia`, written
//! once here ([`ALLOWED_TAGS`], [`ALLOWED_ATTRIBUTES`], [`URL_SCHEMES`]):
//!
//! - no script, style, iframe, object, embed, form, svg or math element, and
//!   no event or `style` attribute: only the tags and attributes listed pass;
//!   the content of `script` and `style` goes with them;
//! - a URL is `http`, `https` or `mailto`, or relative (this server's own
//!   paths); `javascript:`, `vbscript:` and `data:` URLs are removed, however
//!   they are spelled or encoded (ammonia reads them as a browser would);
//! - every link gets `rel="noopener noreferrer nofollow"`;
//! - an image shows only when its source is exactly one of this server's
//!   files, `/api/files/<storedName>` and nothing more ([`is_server_file`]): a
//!   Markdown image of any other source becomes a link to it, and a raw
//!   `<img>` of another source is removed (no tracking pixel loads when a card
//!   is opened, and no `/api/files/../…` path reaches another route); an image
//!   without alt text gets `alt=""`;
//! - the only `<input>` is a task list's checkbox, always disabled: a raw
//!   `<input>` in the text is removed with every other form control.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd, TextMergeStream};

use crate::error::{Result, ValidationErrors};

/// Where this server's files are served: the only image sources shown.
pub(crate) const FILES_PATH: &str = "/api/files/";

/// The elements the HTML may hold.
pub(crate) const ALLOWED_TAGS: &[&str] = &[
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "code",
    "em",
    "strong",
    "del",
    "ul",
    "ol",
    "li",
    "a",
    "img",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "sup",
    "sub",
];

/// The attributes each element may hold (no other attribute passes).
pub(crate) const ALLOWED_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href", "title"]),
    ("img", &["src", "alt", "title"]),
    ("ol", &["start"]),
];

/// The URL schemes a link may have (relative URLs pass too).
pub(crate) const URL_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// The sanitiser, built once.
static CLEANER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let attributes: HashMap<&str, HashSet<&str>> = ALLOWED_ATTRIBUTES
        .iter()
        .map(|(tag, names)| (*tag, names.iter().copied().collect()))
        .collect();
    let mut b = ammonia::Builder::default();
    b.tags(ALLOWED_TAGS.iter().copied().collect())
        .tag_attributes(attributes)
        .generic_attributes(HashSet::new())
        .url_schemes(URL_SCHEMES.iter().copied().collect())
        .url_relative(ammonia::UrlRelative::PassThrough)
        .link_rel(Some("noopener noreferrer nofollow"))
        .attribute_filter(|element, attribute, value| match (element, attribute) {
            ("img", "src") if !is_server_file(value) => None,
            _ => Some(value.into()),
        });
    b
});

/// Whether `src` is exactly one of this server's files: `/api/files/` and a
/// stored name (letters and digits), with nothing before or after it: no
/// further segment, no `..`, no query, fragment or encoded character.
pub(crate) fn is_server_file(src: &str) -> bool {
    src.strip_prefix(FILES_PATH).is_some_and(|name| {
        (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

/// `text` (Markdown) as plain text on one line, for search snippets (api.md
/// §29): the words a reader sees, without Markdown syntax, HTML, link
/// targets or this server's file URLs; an image keeps its alt text.
pub(crate) fn plain_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for event in Parser::new_ext(text, options()) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak | Event::Rule | Event::End(_) => out.push(' '),
            _ => {}
        }
    }
    let words: Vec<&str> = out
        .split_whitespace()
        .filter(|w| {
            !is_server_file(w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '/'))
        })
        .collect();
    words.join(" ")
}

/// A task list's checkboxes, as the HTML shows them (the only `<input>`).
const CHECKBOX: &str = "<input disabled=\"\" type=\"checkbox\">";
const CHECKED: &str = "<input checked=\"\" disabled=\"\" type=\"checkbox\">";

/// `text` (Markdown) as safe HTML.
pub(crate) fn to_html(text: &str) -> String {
    let has_tasks = Parser::new_ext(text, options()).any(|e| matches!(e, Event::TaskListMarker(_)));
    if !has_tasks {
        return render(text, None);
    }
    // The cleaner removes every `<input>`; a task list's checkboxes are put
    // back after it, from two characters that mark them in the text. They are
    // chosen among the private-use characters the text does not render to
    // (rendered without the marks), so no input can forge one.
    let plain = render(text, Some(('\0', '\0')));
    let mut free = ('\u{E000}'..='\u{F8FF}').filter(|c| !plain.contains(*c));
    let (Some(open), Some(done)) = (free.next(), free.next()) else {
        return plain;
    };
    render(text, Some((open, done)))
        .replace(open, CHECKBOX)
        .replace(done, CHECKED)
}

fn options() -> Options {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    options
}

/// `text` rendered and cleaned, each task list marker written as the first
/// (unchecked) or second (checked) character of `marks` (`'\0'`: none).
fn render(text: &str, marks: Option<(char, char)>) -> String {
    let events = TextMergeStream::new(Parser::new_ext(text, options()));
    let events = foreign_images_as_links(bare_urls_as_links(events)).map(move |e| match e {
        Event::TaskListMarker(checked) => {
            let (open, done) = marks.unwrap_or(('\0', '\0'));
            let mark = if checked { done } else { open };
            Event::Text(CowStr::from(mark.to_string().replace('\0', "")))
        }
        other => other,
    });
    let mut unsafe_html = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut unsafe_html, events);
    mend_images(CLEANER.clean(&unsafe_html).to_string())
}

/// The events of `parser`, with each bare `https://…`, `http://…` or `www.…`
/// in text made a link (as on GitHub: a `www.` link goes to `http://`), except
/// in a code block, a link or an image's text (code spans are their own
/// events, never text).
fn bare_urls_as_links<'a>(
    parser: impl Iterator<Item = Event<'a>>,
) -> impl Iterator<Item = Event<'a>> {
    let mut finder = linkify::LinkFinder::new();
    finder
        .kinds(&[linkify::LinkKind::Url])
        .url_must_have_scheme(false);
    // How many code blocks, links and images the current text is inside.
    let mut inside = 0usize;
    parser.flat_map(move |event| {
        let mut out = Vec::new();
        match event {
            Event::Start(Tag::CodeBlock(_) | Tag::Link { .. } | Tag::Image { .. }) => {
                inside += 1;
                out.push(event);
            }
            Event::End(TagEnd::CodeBlock | TagEnd::Link | TagEnd::Image) => {
                inside = inside.saturating_sub(1);
                out.push(event);
            }
            Event::Text(text) if inside == 0 => {
                let mut last = 0;
                for link in finder.links(&text) {
                    let found = link.as_str();
                    let lower = found.to_ascii_lowercase();
                    let href = match () {
                        _ if lower.starts_with("https://") || lower.starts_with("http://") => {
                            found.to_string()
                        }
                        _ if lower.starts_with("www.") => format!("http://{found}"),
                        _ => continue,
                    };
                    if link.start() > last {
                        out.push(Event::Text(CowStr::from(
                            text[last..link.start()].to_string(),
                        )));
                    }
                    out.push(Event::Start(Tag::Link {
                        link_type: LinkType::Autolink,
                        dest_url: CowStr::from(href),
                        title: CowStr::from(""),
                        id: CowStr::from(""),
                    }));
                    out.push(Event::Text(CowStr::from(found.to_string())));
                    out.push(Event::End(TagEnd::Link));
                    last = link.end();
                }
                match last {
                    0 => out.push(Event::Text(text)),
                    _ if last < text.len() => {
                        out.push(Event::Text(CowStr::from(text[last..].to_string())))
                    }
                    _ => {}
                }
            }
            other => out.push(other),
        }
        out
    })
}

/// The cleaner's images, mended so that no client shows an unnamed one: an
/// `<img>` left without a source (a raw one of another source) goes, and one
/// without alt text gets `alt=""` (it is decorative). The cleaner's output
/// quotes every attribute value and escapes `"` and `<` in text, so the first
/// `>` outside quotes ends a tag, and `<img` is always a tag.
fn mend_images(html: String) -> String {
    if !html.contains("<img") {
        return html;
    }
    let mut out = String::with_capacity(html.len() + 16);
    let mut rest = html.as_str();
    while let Some(at) = rest.find("<img") {
        out.push_str(&rest[..at]);
        let tag = &rest[at..];
        let end = (crate::text::unquoted(tag, '>') + 1).min(tag.len());
        let (img, after) = tag.split_at(end);
        if img.contains(" src=\"") {
            if img.contains(" alt=\"") {
                out.push_str(img);
            } else {
                out.push_str(img.trim_end_matches('>'));
                out.push_str(" alt=\"\">");
            }
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The events of `parser`, with each image whose source is not one of this
/// server's files turned into a link to that source (its alt text the link's
/// text).
fn foreign_images_as_links<'a>(
    parser: impl Iterator<Item = Event<'a>>,
) -> impl Iterator<Item = Event<'a>> {
    // Whether each open image became a link (an image's text may hold another).
    let mut open: Vec<bool> = Vec::new();
    parser.map(move |event| match event {
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let foreign = !is_server_file(&dest_url);
            open.push(foreign);
            match foreign {
                true => Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }),
                false => Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                }),
            }
        }
        Event::End(TagEnd::Image) => match open.pop() {
            Some(true) => Event::End(TagEnd::Link),
            _ => Event::End(TagEnd::Image),
        },
        other => other,
    })
}

/// The `html` query of `GET /api/cards/[id]/comments` and `GET /api/cards/[id]`
/// (api.md §24): whether each comment, or the card, also carries its HTML
/// (`html=true`). Kept as given, and checked after the
/// access check.
///
/// ```
/// let plain = board_core::ThreadQuery::default();
/// let rendered = board_core::ThreadQuery::from_query(Some("true"));
/// # let _ = (plain, rendered);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadQuery {
    html: Option<String>,
}

impl ThreadQuery {
    /// The query of the `html` parameter's value, as given (`None`: absent).
    pub fn from_query(html: Option<&str>) -> ThreadQuery {
        ThreadQuery {
            html: html.map(str::to_string),
        }
    }

    /// Each comment with its HTML.
    pub fn html() -> ThreadQuery {
        ThreadQuery::from_query(Some("true"))
    }

    /// Whether the HTML is asked for; 422 on `html` for a value other than
    /// `true` or `false`.
    pub(crate) fn wants_html(&self) -> Result<bool> {
        match self.html.as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(_) => Err(ValidationErrors::one("html", "Expected true or false")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_drops_markdown_syntax_and_file_urls() {
        assert_eq!(
            plain_text("Look: ![screenshot.png](/api/files/abc123)\n\n**bold** and `code`"),
            "Look: screenshot.png bold and code"
        );
        assert_eq!(
            plain_text(
                "# Title\n- [x] done item\n- [see](https://example.com) it\n> quoted <b>x</b>"
            ),
            "Title done item see it quoted x"
        );
        assert_eq!(plain_text("a bare /api/files/abc123 url"), "a bare url");
        assert_eq!(
            plain_text("kept: /api/files/../etc"),
            "kept: /api/files/../etc"
        );
    }

    /// A tag's name and its attributes (name, value), as slices of the HTML.
    type Tag<'h> = (&'h str, Vec<(&'h str, &'h str)>);

    /// The opening tags of `html` (ammonia's output: every `<` opens a tag,
    /// every attribute value is double-quoted).
    fn tags(html: &str) -> Vec<Tag<'_>> {
        let mut out = Vec::new();
        let mut rest = html;
        while let Some(open) = rest.find('<') {
            rest = &rest[open + 1..];
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '/'))
                .unwrap_or(rest.len());
            let name = &rest[..len];
            rest = &rest[len..];
            let mut attributes = Vec::new();
            loop {
                rest = rest.trim_start_matches([' ', '/']);
                if rest.starts_with('>') || rest.is_empty() {
                    break;
                }
                let len = rest.find(['=', ' ', '>', '/']).unwrap_or(rest.len());
                let key = &rest[..len];
                rest = &rest[len..];
                let mut value = "";
                if let Some(after) = rest.strip_prefix("=\"") {
                    let end = after.find('"').expect("a closing quote");
                    value = &after[..end];
                    rest = &after[end + 1..];
                }
                attributes.push((key, value));
            }
            if !name.starts_with('/') {
                out.push((name, attributes));
            }
        }
        out
    }

    /// Every tag and attribute is allowed, and every URL is one of the
    /// allowed schemes or relative.
    fn assert_safe(input: &str) -> String {
        let html = to_html(input);
        for (tag, attributes) in tags(&html) {
            if tag == "input" {
                // A task list's checkbox, exactly as this module writes it.
                let names: Vec<&str> = attributes.iter().map(|(k, _)| *k).collect();
                assert!(
                    names == ["disabled", "type"] || names == ["checked", "disabled", "type"],
                    "{input:?} → {attributes:?} in {html}"
                );
                assert!(attributes.contains(&("type", "checkbox")), "{html}");
                continue;
            }
            assert!(ALLOWED_TAGS.contains(&tag), "{input:?} → <{tag}> in {html}");
            let allowed = ALLOWED_ATTRIBUTES
                .iter()
                .find(|(t, _)| *t == tag)
                .map_or(&[][..], |(_, a)| a);
            for (key, value) in attributes {
                let rel = tag == "a" && key == "rel";
                assert!(allowed.contains(&key) || rel, "{input:?} → {key} in {html}");
                if key == "href" || key == "src" {
                    let v = value.to_ascii_lowercase();
                    let scheme_ok = URL_SCHEMES.iter().any(|s| v.starts_with(&format!("{s}:")));
                    let relative = v.starts_with('/') || v.starts_with('#') || !v.contains(':');
                    assert!(scheme_ok || relative, "{input:?} → {key}={value} in {html}");
                }
                if tag == "img" && key == "src" {
                    assert!(
                        is_server_file(value),
                        "{input:?} → a foreign image in {html}"
                    );
                }
            }
        }
        html
    }

    #[test]
    fn markdown_renders_tables_strikethrough_autolinks_and_task_lists() {
        let html = assert_safe(
            "# Plan\n\n**bold** ~~gone~~ <https://example.com>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
             - [x] done\n- [ ] todo\n",
        );
        assert!(html.contains("<h1>Plan</h1>"), "{html}");
        assert!(
            html.contains("<strong>bold</strong>") && html.contains("<del>gone</del>"),
            "{html}"
        );
        assert!(
            html.contains("<table>") && html.contains("<td>1</td>"),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"https://example.com\" rel=\"noopener noreferrer nofollow\">"),
            "{html}"
        );
        assert_eq!(html.matches("<input").count(), 2, "{html}");
        assert_eq!(
            html.matches("disabled").count(),
            2,
            "every checkbox disabled: {html}"
        );
        assert_eq!(html.matches("checked").count(), 1, "{html}");
    }

    #[test]
    fn images_show_only_from_this_servers_files() {
        let html = assert_safe("![shot](/api/files/abc123)");
        assert!(
            html.contains("<img src=\"/api/files/abc123\" alt=\"shot\""),
            "{html}"
        );
        let html = assert_safe("![pixel](https://tracker.example/p.gif)");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("href=\"https://tracker.example/p.gif\""),
            "a link to it: {html}"
        );
        assert!(html.contains(">pixel</a>"), "{html}");
        let html = assert_safe("<img src=\"https://tracker.example/p.gif\">");
        assert!(!html.contains("tracker"), "{html}");
        // No image is left unnamed: one without a source goes, one without alt is decorative.
        let html = assert_safe("a <img src=x onerror=alert(1)> b <img title=\"t>\">");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("a  b"), "{html}");
        let html = assert_safe("<img title=\"a > b\" src=\"/api/files/xy1\">");
        assert!(
            html.contains("<img title=\"a &gt; b\" src=\"/api/files/xy1\" alt=\"\">"),
            "{html}"
        );
        let html = assert_safe("![](/api/files/xy1)");
        assert!(html.contains("alt=\"\""), "{html}");
    }

    #[test]
    fn an_image_shows_only_from_exactly_a_stored_files_path() {
        let html = assert_safe("![x](/api/files/../../api/session)");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("<a href=\"/api/files/../../api/session\""),
            "a link: {html}"
        );
        for src in [
            "/api/files/",
            "/api/files/abc/def",
            "/api/files/abc?x=1",
            "/api/files/abc#x",
            "/api/files/%2e%2e",
            "/api/files/..",
            "/api/files/abc%2Fdef",
            "/api/files/abc/../../session",
            "//api/files/abc",
            "/api/filesabc",
            "https://host/api/files/abc",
        ] {
            let html = assert_safe(&format!("![x]({src})"));
            assert!(!html.contains("<img"), "{src}: {html}");
            let html = assert_safe(&format!("<img src=\"{src}\" alt=\"x\">"));
            assert!(!html.contains("<img"), "{src}: {html}");
        }
        assert!(is_server_file("/api/files/clx9k2j0a000008l4g3h2f1e0"));
        assert!(!is_server_file(&format!("/api/files/{}", "a".repeat(65))));
    }

    #[test]
    fn the_only_input_is_a_task_lists_checkbox() {
        for raw in [
            "<input disabled>",
            "<input type=\"checkbox\" checked disabled>",
            "- <input disabled> not a task",
            "a <INPUT TYPE=checkbox DISABLED> b",
            "<p><input type=\"text\" value=\"x\"></p>",
        ] {
            let html = assert_safe(raw);
            assert!(!html.contains("<input"), "{raw:?} → {html}");
        }
        let html = assert_safe("- [ ] a\n- [x] b\n- <input type=checkbox disabled> c\n");
        assert_eq!(html.matches("<input").count(), 2, "{html}");
        assert_eq!(html.matches("checked").count(), 1, "{html}");
        // The marks that stand for checkboxes cannot be forged, spelled or encoded.
        let forged = "- [ ] a\n\n\u{E000} \u{E001} &#57344; &#xE001; `\u{E000}` [\u{E000}](/x \"\u{E000}\")\n";
        let html = assert_safe(forged);
        assert_eq!(html.matches("<input").count(), 1, "{html}");
        assert!(html.contains('\u{E000}'), "the text stays: {html}");
    }

    #[test]
    fn bare_urls_become_links_as_on_github() {
        let html = assert_safe(
            "See https://example.com/a_b?q=1, http://old.example and www.example.org.\n\n\
             Not example.com nor `https://code.example`, nor [https://text.example](https://to.example).\n\n\
             ```\nhttps://block.example\n```\n\n    https://indented.example\n\n\
             javascript:alert(1) ftp://files.example <https://angle.example> (https://paren.example/x)",
        );
        let link = |href: &str, text: &str| {
            format!("<a href=\"{href}\" rel=\"noopener noreferrer nofollow\">{text}</a>")
        };
        for (href, text) in [
            ("https://example.com/a_b?q=1", "https://example.com/a_b?q=1"),
            ("http://old.example", "http://old.example"),
            ("http://www.example.org", "www.example.org"),
            ("https://to.example", "https://text.example"),
            ("https://angle.example", "https://angle.example"),
            ("https://paren.example/x", "https://paren.example/x"),
        ] {
            assert!(html.contains(&link(href, text)), "{href}: {html}");
        }
        assert_eq!(html.matches("<a ").count(), 6, "{html}");
        for plain in [
            "<code>https://code.example</code>",
            "https://block.example\n</code>",
            "https://indented.example\n</code>",
            "Not example.com nor",
            "javascript:alert(1) ftp://files.example",
        ] {
            assert!(html.contains(plain), "{plain}: {html}");
        }
        assert!(
            html.contains("www.example.org</a>."),
            "the full stop stays out: {html}"
        );
    }

    /// Vectors that broke peers (Planka, Wekan, Vikunja, Deck advisories) and
    /// the cases of OWASP's XSS filter evasion cheat sheet.
    #[test]
    fn xss_vectors_come_out_harmless() {
        let vectors = [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "<IMG SRC=\"javascript:alert('XSS');\">",
            "<IMG SRC=javascript:alert('XSS')>",
            "<IMG SRC=JaVaScRiPt:alert('XSS')>",
            "<IMG SRC=`javascript:alert(\"RSnake says, 'XSS'\")`>",
            "<IMG \"\"\"><SCRIPT>alert(\"XSS\")</SCRIPT>\"\\>",
            "<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>",
            "<IMG SRC=\"jav\tascript:alert('XSS');\">",
            "<IMG SRC=\"jav&#x0A;ascript:alert('XSS');\">",
            "<IMG SRC=\" &#14;  javascript:alert('XSS');\">",
            "<SCRIPT/XSS SRC=\"http://xss.rocks/xss.js\"></SCRIPT>",
            "<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert(\"XSS\")>",
            "<<SCRIPT>alert(\"XSS\");//<</SCRIPT>",
            "<SCRIPT SRC=http://xss.rocks/xss.js?< B >",
            "<iframe src=http://xss.rocks/scriptlet.html <",
            "</TITLE><SCRIPT>alert(\"XSS\");</SCRIPT>",
            "<INPUT TYPE=\"IMAGE\" SRC=\"javascript:alert('XSS');\">",
            "<input onfocus=alert(1) autofocus>",
            "<BODY BACKGROUND=\"javascript:alert('XSS')\">",
            "<svg/onload=alert('XSS')>",
            "<svg><script>alert(1)</script></svg>",
            "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
            "<details open ontoggle=alert(1)>",
            "<STYLE>li {list-style-image: url(\"javascript:alert('XSS')\");}</STYLE><UL><LI>XSS</br>",
            "<DIV STYLE=\"background-image: url(javascript:alert('XSS'))\">",
            "<META HTTP-EQUIV=\"refresh\" CONTENT=\"0;url=javascript:alert('XSS');\">",
            "<LINK REL=\"stylesheet\" HREF=\"javascript:alert('XSS');\">",
            "<BASE HREF=\"javascript:alert('XSS');//\">",
            "<OBJECT TYPE=\"text/x-scriptlet\" DATA=\"http://xss.rocks/scriptlet.html\"></OBJECT>",
            "<EMBED SRC=\"data:image/svg+xml;base64,PHN2Zz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+\">",
            "<form action=javascript:alert(1)><button>go</button></form>",
            "<TABLE BACKGROUND=\"javascript:alert('XSS')\"><TD BACKGROUND=\"javascript:alert('XSS')\">",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<a href=\"&#x6A;avascript:alert(1)\">x</a>",
            "<a href=\"  javascript:alert(1)\">x</a>",
            "<a href=\"vbscript:msgbox(1)\">x</a>",
            "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](javascript&#58;alert(1))",
            "[x](&#106;avascript:alert(1))",
            "[x](vbscript:msgbox(1))",
            "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
            "[x](<javascript:alert(1)>)",
            "<javascript:alert(1)>",
            "![x](javascript:alert(1))",
            "![x\"onerror=\"alert(1)](/api/files/a.png)",
            "[x](/api/files/a \"t\\\" onmouseover=\\\"alert(1)\")",
            "<a href=\"https://ok.example\" onclick=\"alert(1)\" style=\"color:red\">x</a>",
            "<p style=\"position:fixed;top:0\">cover</p>",
            "<!--<script>alert(1)</script>-->",
            "```\n<script>alert(1)</script>\n```",
        ];
        for v in vectors {
            let html = assert_safe(v);
            let lower = html.to_ascii_lowercase();
            assert!(!lower.contains("<script"), "{v:?} → {html}");
            for word in ["javascript:", "vbscript:", "data:text", "data:image"] {
                let in_tag = tags(&lower)
                    .iter()
                    .any(|(_, attrs)| attrs.iter().any(|(_, value)| value.contains(word)));
                assert!(!in_tag, "{v:?} → {html}");
            }
        }
    }

    #[test]
    fn the_text_is_escaped_not_dropped() {
        let html = assert_safe("1 < 2 & \"quotes\"");
        assert!(html.contains("1 &lt; 2 &amp;"), "{html}");
        let html = assert_safe("```\n<script>alert(1)</script>\n```");
        assert!(
            html.contains("&lt;script&gt;"),
            "code shows as text: {html}"
        );
    }
}
