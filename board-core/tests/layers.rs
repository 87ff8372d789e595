//! The layers of board-core, as ARCHITECTURE.md draws them, hold in the code.
//!
//! The test reads the picture under "## Layers" in ARCHITECTURE.md (a layer
//! a line, the highest first; a line that starts with a space goes on with
//! the layer above it) and every `crate::`, `super::` and `self::` path of
//! `board-core/src` outside comments, strings and `#[cfg(test)]` modules, and
//! every path that starts with the name of one of the module's own submodules
//! (`watch::view_tag`, read as `self::watch::view_tag`). A parent's path to
//! its child is an arrow like any other, unless it is only in re-exports
//! (`pub use child::X;`, `pub(crate) use child::X;`): a parent's re-exports
//! of its children are its face, not its use of them. It fails when a module
//! is in no layer or in two, when a path points to a higher layer, when the
//! modules' paths make a circle, or when a module names a re-export of the
//! crate root instead of the module that defines it.
//! The root defines nothing: `Board` and `Admin` live in `board.rs`, a module
//! like any other, and every `impl Board` block points down to it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path: `["store", "tx"]`; the crate root is empty.
type Module = Vec<String>;

#[test]
fn every_path_points_down_the_layer_picture_and_none_makes_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeMap<Module, String> = files
        .iter()
        .map(|path| {
            (
                module_of(&src, path),
                code_of(&std::fs::read_to_string(path).unwrap()),
            )
        })
        .collect();
    let root = &modules[&Vec::new()];
    let root_items = items_of(root);
    assert!(
        root_items.is_empty(),
        "lib.rs only declares modules and re-exports; it defines {root_items:?}"
    );
    let layers = layers();
    let layer_of = |m: &Module| layers.get(m[0].as_str()).copied();

    let mut problems = Vec::new();
    for top in modules
        .keys()
        .filter_map(|m| m.first())
        .collect::<BTreeSet<_>>()
    {
        if top != "testing" && !layers.contains_key(top.as_str()) {
            problems.push(format!("`{top}` is in no layer of ARCHITECTURE.md"));
        }
    }
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, code) in &modules {
        if module.is_empty() || module[0] == "testing" {
            continue;
        }
        let children = children_of(module, &modules);
        // A parent's re-exports of its children are its face, not its use of them.
        let used = paths_in(&without_reexports(code), &children);
        for path in paths_in(code, &children) {
            let target = resolve(module, &path, &modules);
            if target.is_empty() {
                problems.push(format!(
                    "{} names `{}` through the crate root: name it by its module",
                    module.join("::"),
                    path.join("::")
                ));
                continue;
            }
            if &target == module || (target.starts_with(module) && !used.contains(&path)) {
                continue;
            }
            if let (Some(from), Some(to)) = (layer_of(module), layer_of(&target)) {
                if to > from {
                    problems.push(format!(
                        "{} points up to {} (`{}`)",
                        module.join("::"),
                        target.join("::"),
                        path.join("::")
                    ));
                }
            }
            edges.entry(module.clone()).or_default().insert(target);
        }
    }
    if let Some(circle) = circle(&edges) {
        let names: Vec<String> = circle.iter().map(|m| m.join("::")).collect();
        problems.push(format!("a circle: {}", names.join(" → ")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        edges.len() > 30,
        "the paths were read: {} modules with arrows",
        edges.len()
    );
}

/// The layer of each top-level module: 0 for the lowest.
fn layers() -> BTreeMap<String, usize> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md");
    let doc = std::fs::read_to_string(doc).unwrap();
    let section = doc
        .split("\n## Layers")
        .nth(1)
        .expect("a section ## Layers");
    let picture = section
        .split("```")
        .nth(1)
        .expect("a picture in ``` under ## Layers");
    let mut rows: Vec<Vec<String>> = Vec::new();
    for line in picture.lines().skip(1) {
        let words = line.split_whitespace().filter(|w| !w.contains('▲'));
        let names: Vec<String> = words
            .map(|w| w.trim_end_matches('/').trim_end_matches(".rs").to_string())
            .collect();
        match (line.starts_with(' '), rows.last_mut()) {
            (_, _) if names.is_empty() => {}
            (true, Some(row)) => row.extend(names),
            _ => rows.push(names.into_iter().skip(1).collect()),
        }
    }
    let mut out = BTreeMap::new();
    for (i, row) in rows.iter().rev().enumerate() {
        for name in row {
            assert!(
                out.insert(name.clone(), i).is_none(),
                "`{name}` is in two layers"
            );
        }
    }
    assert!(rows.len() >= 4, "the picture has its layers: {rows:?}");
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The code of a file without comments, strings, character literals and
/// `#[cfg(test)] mod …` blocks.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                i = end;
            }
            b'r' if b.get(i + 1) == Some(&b'#')
                || (b.get(i + 1) == Some(&b'"') && !ident(b, i)) =>
            {
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let from = i + 2 + hashes;
                i = text[from..]
                    .find(&close)
                    .map_or(b.len(), |e| from + e + close.len());
                out.push_str("\"\"");
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A character literal ('x', '\n', '\u{..}'); a lifetime is left.
            b'\'' if b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\') => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            _ => {
                let c = text[i..].chars().next().unwrap();
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    strip_test_modules(&out)
}

/// Whether the byte before `i` continues an identifier.
fn ident(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

fn strip_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let rest = out[at + 12..].trim_start();
        let start = out.len() - rest.len();
        let end = if rest.starts_with("mod ") && rest.find('{') < rest.find(';') {
            let open = start + rest.find('{').unwrap();
            let mut depth = 0;
            let mut end = out.len();
            for (j, c) in out[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + j + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            end
        } else {
            // One item: up to its `;` (a `mod x;`, a `use`).
            start + rest.find(';').map_or(rest.len(), |e| e + 1)
        };
        out.replace_range(at..end, "");
    }
    out
}

/// Every path that starts with `crate`, `super` or `self`, a `use` group
/// `a::{b, c::d}` expanded into its paths.
fn paths(code: &str) -> Vec<Vec<String>> {
    paths_in(code, &BTreeSet::new())
}

/// [`paths`], and the paths that start with the name of one of `children`
/// (the module's own submodules, named without `self::`), as `self::…`.
fn paths_in(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .any(|k| b[i..].starts_with(k.as_bytes()));
        let child = children
            .iter()
            .any(|c| b[i..].starts_with(format!("{c}::").as_bytes()));
        let free = (!ident(b, i) || b[i - 1] == b'$') && b.get(i.wrapping_sub(1)) != Some(&b':');
        if (starts || child) && free {
            let prefix = match starts {
                true => Vec::new(),
                false => vec!["self".to_string()],
            };
            let (found, end) = path_at(code, i, prefix);
            out.extend(found);
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// The names of `module`'s own submodules.
fn children_of(module: &Module, modules: &BTreeMap<Module, String>) -> BTreeSet<String> {
    modules
        .keys()
        .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
        .map(|m| m[module.len()].clone())
        .collect()
}

/// `code` without its re-exports: `pub use …;` and `pub(…) use …;`.
fn without_reexports(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("pub") {
        let after = rest[at + 3..].trim_start();
        let after = match after.strip_prefix('(') {
            Some(scope) => scope.split_once(')').map_or("", |(_, r)| r).trim_start(),
            None => after,
        };
        let word_start = at == 0 || !ident(rest.as_bytes(), at);
        if word_start && after.starts_with("use ") {
            out.push_str(&rest[..at]);
            let end = rest.len() - after.len();
            rest = &rest[end + after.find(';').map_or(after.len(), |e| e + 1)..];
        } else {
            out.push_str(&rest[..at + 3]);
            rest = &rest[at + 3..];
        }
    }
    out.push_str(rest);
    out
}

/// The paths of the path at `i` (after `prefix`), and where it ends.
fn path_at(code: &str, mut i: usize, mut prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let b = code.as_bytes();
    loop {
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        if i > start {
            prefix.push(code[start..i].to_string());
        }
        if b[i..].starts_with(b"::{") {
            let mut out = Vec::new();
            i += 3;
            loop {
                while i < b.len() && (b[i] == b' ' || b[i] == b'\n' || b[i] == b',') {
                    i += 1;
                }
                if i >= b.len() || b[i] == b'}' {
                    return (out, i + 1);
                }
                let (found, end) = path_at(code, i, prefix.clone());
                out.extend(found);
                // Past an `as name` to the next member.
                i = end;
                while i < b.len() && b[i] != b',' && b[i] != b'}' {
                    i += 1;
                }
            }
        }
        if b[i..].starts_with(b"::") {
            i += 2;
            continue;
        }
        return (vec![prefix], i);
    }
}

/// The module a path names (the longest module its segments reach).
fn resolve(from: &Module, path: &[String], modules: &BTreeMap<Module, String>) -> Module {
    let mut at: Module = Vec::new();
    let mut rest = path;
    // `super` of a file `a/b.rs` is `a`; of `a/mod.rs` (module `a`), the root.
    let mut here = from.clone();
    while let Some((first, tail)) = rest.split_first() {
        match first.as_str() {
            "crate" => here = Vec::new(),
            "super" => {
                here.pop();
            }
            "self" => {}
            _ => break,
        }
        at = here.clone();
        rest = tail;
    }
    for segment in rest {
        let mut next = at.clone();
        next.push(segment.clone());
        if !modules.contains_key(&next) {
            break;
        }
        at = next;
    }
    at
}

/// The names of the items a file defines at its top level.
fn items_of(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for kind in [
        "struct ", "enum ", "const ", "fn ", "type ", "trait ", "static ", "impl ",
    ] {
        for (at, _) in code.match_indices(kind) {
            let name: String = code[at + kind.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.insert(name);
        }
    }
    out
}

/// A circle among `edges`, if any.
fn circle(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        m: &Module,
        edges: &BTreeMap<Module, BTreeSet<Module>>,
        done: &mut BTreeSet<Module>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        if let Some(at) = stack.iter().position(|s| s == m) {
            let mut found = stack[at..].to_vec();
            found.push(m.clone());
            return Some(found);
        }
        if !done.insert(m.clone()) {
            return None;
        }
        stack.push(m.clone());
        for next in edges.get(m).into_iter().flatten() {
            if let Some(found) = visit(next, edges, done, stack) {
                return Some(found);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut done, &mut Vec::new()))
}

#[test]
fn the_reader_finds_paths_groups_and_circles() {
    let code = code_of(
        "use crate::{a::{B, c::D}, e}; // crate::x\nlet s = \"crate::y\"; \
         fn f() { super::g::h(); $crate::z::W }\n#[cfg(test)]\nmod tests { use crate::q; }",
    );
    let found: Vec<String> = paths(&code).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        found,
        [
            "crate::a::B",
            "crate::a::c::D",
            "crate::e",
            "super::g::h",
            "crate::z::W"
        ]
    );
    // A submodule's name starts a path, unless it follows another name.
    let children: BTreeSet<String> = ["listing".into(), "watch".into()].into();
    let code = code_of(
        "use listing::Listing;\nfn f() { watch::view_tag(); x::watch::y(); rewatch::z(); }",
    );
    let found: Vec<String> = paths_in(&code, &children)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(found, ["self::listing::Listing", "self::watch::view_tag"]);
    // Re-exports are taken out; a plain `use` and a `pub`-like name stay.
    let code = "pub use a::B;\npub(crate) use c::{D, E};\nuse f::G;\nfn public() {}";
    assert_eq!(without_reexports(code), "\n\nuse f::G;\nfn public() {}");
    let m = |s: &str| s.split("::").map(String::from).collect::<Module>();
    let edges: BTreeMap<Module, BTreeSet<Module>> = [
        (m("a"), [m("b")].into()),
        (m("b"), [m("c")].into()),
        (m("c"), [m("a")].into()),
    ]
    .into();
    assert_eq!(circle(&edges).map(|c| c.len()), Some(4));
    let modules: BTreeMap<Module, String> =
        [(m("a"), String::new()), (m("a::b"), String::new())].into();
    let path = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(resolve(&m("a::b"), &path("super::X"), &modules), m("a"));
    assert_eq!(
        resolve(&m("a"), &path("crate::a::b::Y"), &modules),
        m("a::b")
    );
    assert_eq!(
        resolve(&m("a"), &path("super::Board"), &modules),
        Module::new()
    );
}
