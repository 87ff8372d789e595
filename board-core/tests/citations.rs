//! Every rule the code cites lives in the repository: a `§N` in any tracked
//! text file names a section `## §N.` of `docs/api.md`, and no line cites a
//! section of a contract kept outside the repository (the word "contract"
//! before a section sign). A reader can open what the code points at.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace's root (board-core's parent).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("board-core sits in the workspace")
        .to_path_buf()
}

/// Folders that hold no source: build output, dependencies, pictures, what
/// a run leaves behind (used only without git, which names the tracked files).
const SKIPPED: &[&str] = &[
    "target",
    ".git",
    "node_modules",
    "screenshots",
    "__pycache__",
    ".schemathesis",
    "board-data",
    "board-export",
];

/// The workspace's text files: the ones git tracks, or without git every
/// file below `root` but in [`SKIPPED`] folders (a file that is not UTF-8 is
/// not text).
fn text_files(root: &Path) -> Vec<(PathBuf, String)> {
    let tracked = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success() && !o.stdout.is_empty());
    let paths: Vec<PathBuf> = match tracked {
        Some(o) => String::from_utf8_lossy(&o.stdout)
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(|p| root.join(p))
            .collect(),
        None => {
            let mut all = Vec::new();
            walk(root, &mut all);
            all
        }
    };
    paths
        .into_iter()
        .filter_map(|p| Some((p.clone(), std::fs::read_to_string(&p).ok()?)))
        .collect()
}

/// Every file below `dir` but in [`SKIPPED`] folders.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read a folder of the workspace") {
        let path = entry.expect("a folder entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        match path.is_dir() {
            true if !SKIPPED.contains(&name) => walk(&path, out),
            true => {}
            false => out.push(path),
        }
    }
}

/// The section numbers that `docs/api.md` heads (`## §N.`).
fn sections(api: &str) -> BTreeSet<u32> {
    api.lines()
        .filter_map(|l| l.strip_prefix("## §"))
        .filter_map(|l| l.split('.').next()?.parse().ok())
        .collect()
}

/// Every `§N` of `text`: its number and the line it is on.
fn citations(text: &str) -> Vec<(u32, usize)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices('§') {
            let digits: String = line[at + '§'.len_utf8()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(n) = digits.parse() {
                out.push((n, i + 1));
            }
        }
    }
    out
}

#[test]
fn every_section_cited_is_in_docs_api_md_and_no_line_cites_an_outside_contract() {
    let root = root();
    let api = std::fs::read_to_string(root.join("docs/api.md")).expect("docs/api.md exists");
    let known = sections(&api);
    assert_eq!(
        known,
        (1..=29).collect(),
        "docs/api.md heads §1 to §29, each once, as `## §N. Title`"
    );
    let outside = format!("contract {}", '§');
    let files = text_files(&root);
    let mut wrong = Vec::new();
    for (path, text) in &files {
        let shown = path.strip_prefix(&root).unwrap_or(path).display();
        for (i, line) in text.lines().enumerate() {
            if line.to_lowercase().contains(&outside) {
                wrong.push(format!("{shown}:{}: cites an outside contract", i + 1));
            }
        }
        for (n, line) in citations(text) {
            if !known.contains(&n) {
                wrong.push(format!("{shown}:{line}: §{n} is no section of docs/api.md"));
            }
        }
    }
    assert!(files.len() > 100, "the walk found the workspace's files");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn citations_are_found_wherever_they_stand() {
    assert_eq!(
        citations("a (§3) and §24's, §§ and §x\n§7"),
        vec![(3, 1), (24, 1), (7, 2)]
    );
    assert_eq!(
        sections("## §1. One\n## §12. Twelve\n### §3. not a section\n"),
        BTreeSet::from([1, 12])
    );
}
