//! Benchmark of issue 62 (api.md §28): a Trello export of 5,000 cards, 20,000
//! comments and 10,000 checklist items (and a move per card), built in
//! Trello's shape (`testkit::trello`), imported with `Board::import_trello`
//! into a fresh database of each backend: the time, and how much the
//! process's resident memory grew at its peak over what it held before (the
//! peak is reset through `/proc/self/clear_refs`), against the file's size.
//!
//! `cargo run --release --example bench_trello` (PostgreSQL too when
//! `BOARD_TEST_POSTGRES_URL` is set; each backend in a process of its own).

use std::collections::BTreeMap;
use std::time::Instant;

use board_core::{Actor, Name, Role, TrelloImport};
use testkit::trello::TrelloBoard;
use testkit::{Backend, TestDb};

const CARDS: usize = 5_000;
const COMMENTS_PER_CARD: usize = 4;
const ITEMS_PER_CARD: usize = 2;

/// A field of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> u64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn export() -> Vec<u8> {
    let mut b = TrelloBoard::new("Benchmark board");
    let members: Vec<String> = (0..5)
        .map(|i| b.member(&format!("user{i}"), &format!("User Number {i}")))
        .collect();
    let lists: Vec<String> = ["Backlog", "To do", "Doing", "Review", "Done", "Old"]
        .iter()
        .enumerate()
        .map(|(i, n)| b.list(n, i == 5))
        .collect();
    let labels: Vec<String> = (0..10)
        .map(|i| b.label(&format!("label {i}"), Some("green")))
        .collect();
    for c in 0..CARDS {
        let by = &members[c % members.len()];
        let list = &lists[c % 5];
        let desc = format!("Card {c}: what it is about, in **Markdown**, a few words long.");
        let card = b.card(
            list,
            &format!("Card number {c} of the benchmark"),
            &desc,
            by,
        );
        b.label_card(&card, &labels[c % labels.len()]);
        b.assign(&card, by);
        let items: Vec<(String, bool)> = (0..ITEMS_PER_CARD)
            .map(|i| (format!("step {i} of card {c}"), i == 0))
            .collect();
        let items: Vec<(&str, bool)> = items.iter().map(|(t, d)| (t.as_str(), *d)).collect();
        b.checklist(&card, "Steps", &items);
        for k in 0..COMMENTS_PER_CARD {
            let who = &members[(c + k) % members.len()];
            let text = format!("Comment {k} on card {c}: looks good, but check the numbers again.");
            b.comment(&card, who, &text);
        }
        b.move_card(&card, &lists[(c + 1) % 5], by);
    }
    b.to_bytes()
}

async fn run(backend: Backend, file: &[u8]) {
    let db = TestDb::new(backend).await;
    let board = db.open().await;
    let admin = board.admin();
    let ws = admin
        .create_workspace(&Name::parse("Bench").unwrap())
        .await
        .unwrap();
    let account = admin
        .create_account(&Name::parse("importer").unwrap())
        .await
        .unwrap();
    admin
        .add_member(&ws.id, &account.id, Role::Admin)
        .await
        .unwrap();
    // Map the Trello members by name: five accounts of the same names.
    for i in 0..5 {
        let a = admin
            .create_account(&Name::parse(&format!("User Number {i}")).unwrap())
            .await
            .unwrap();
        admin.add_member(&ws.id, &a.id, Role::Member).await.unwrap();
    }
    std::fs::write("/proc/self/clear_refs", "5").ok();
    let before = status_kib("VmRSS:");
    let started = Instant::now();
    let import = TrelloImport {
        workspace_id: ws.id.clone(),
        project_id: None,
        members: BTreeMap::new(),
        dry_run: false,
        importer: Some(account.id.clone()),
        file_over: None,
    };
    let summary = board
        .import_trello(&Actor::Operator, import, file)
        .await
        .unwrap();
    let took = started.elapsed();
    let peak = status_kib("VmHWM:");
    let grew = peak.saturating_sub(before) * 1024;
    println!(
        "{backend:?}: {:.1} s for {} cards, {} comments, {} checklist items, {} history \
         entries; peak memory +{:.0} MB = {:.1} × the file",
        took.as_secs_f64(),
        summary.cards.created,
        summary.comments,
        summary.checklist_items,
        summary.history_entries,
        grew as f64 / 1e6,
        grew as f64 / file.len() as f64
    );
    assert_eq!(summary.cards.created as usize, CARDS);
    drop(board);
}

/// The file is written by this process, then each backend imports it in a
/// process of its own (`bench_trello sqlite|postgres FILE`), which holds
/// nothing but the file's bytes before the import.
#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let backend = match args.get(1).map(String::as_str) {
        Some("sqlite") => Backend::Sqlite,
        Some("postgres") => Backend::Postgres,
        _ => {
            let path = std::env::temp_dir().join("bench_trello.json");
            let file = export();
            println!("the export: {:.1} MB", file.len() as f64 / 1e6);
            std::fs::write(&path, &file).unwrap();
            drop(file);
            let mut backends = vec!["sqlite"];
            if std::env::var("BOARD_TEST_POSTGRES_URL").is_ok() {
                backends.push("postgres");
            }
            for b in backends {
                let me = std::env::current_exe().unwrap();
                let status = std::process::Command::new(me)
                    .arg(b)
                    .arg(&path)
                    .status()
                    .unwrap();
                assert!(status.success(), "{b}: {status}");
            }
            std::fs::remove_file(&path).ok();
            return;
        }
    };
    let file = std::fs::read(&args[2]).unwrap();
    run(backend, &file).await;
}
