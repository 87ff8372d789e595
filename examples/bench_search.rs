//! Benchmark of issue 30 (api.md §19), on either backend: a two-word search's
//! first page on 100,000 cards and 500,000 comments (rare and common words),
//! against a raw read of the index rows of its first word in the same run; and the cost the search index
//! adds to a comment create: raw commits of the comment row alone, the same
//! with its index rows, and `Board::create_comment` (what `POST …/comments`
//! runs), interleaved in the same run.
//!
//! `cargo run --release --example bench_search -- [sqlite://…|postgres://…]`
//! (default: a SQLite file in the temp folder). Use an empty database.

use std::time::{Duration, Instant};

use board_core::{Actor, Board, CommentInput, CommentText, Name, SearchQuery, SetQuery};
use sqlx::AnyPool;

/// The cards (`BENCH_SEARCH_CARDS` overrides it, for a smaller run).
fn cards() -> usize {
    std::env::var("BENCH_SEARCH_CARDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000)
}
const COMMENTS_PER_CARD: usize = 5;
const READS: usize = 30;
const WRITES: usize = 300;

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A word of the vocabulary, the first ones far more often (rank ~ r²).
    fn word<'a>(&mut self, vocabulary: &'a [String]) -> &'a str {
        let r = (self.next() % 10_000) as f64 / 10_000.0;
        &vocabulary[((r * r) * vocabulary.len() as f64) as usize]
    }

    fn text(&mut self, vocabulary: &[String], min: u64, max: u64) -> String {
        let n = min + self.next() % (max - min + 1);
        let words: Vec<&str> = (0..n).map(|_| self.word(vocabulary)).collect();
        let mut s = words.join(" ");
        if let Some(first) = s.get(..1) {
            s.replace_range(..1, &first.to_uppercase());
        }
        s
    }
}

/// 4,352 words of two or three syllables, some with accents.
fn vocabulary() -> Vec<String> {
    let syllables = [
        "ba", "ca", "da", "ção", "ré", "mi", "lo", "tu", "ne", "sa", "vo", "ri", "xe", "pa", "gu",
        "fé",
    ];
    let mut v = Vec::new();
    for a in syllables {
        for b in syllables {
            v.push(format!("{a}{b}"));
        }
    }
    for a in syllables {
        for b in syllables {
            for c in syllables {
                v.push(format!("{a}{b}{c}"));
            }
        }
    }
    v
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).unwrap_or_else(|| {
        let dir = std::env::temp_dir().join(format!("board-bench-search-{}", std::process::id()));
        format!("sqlite://{}/board.db", dir.display())
    });
    let board = Board::open(&url).await?;
    sqlx::any::install_default_drivers();
    let pool = AnyPool::connect(&url).await?;
    println!("backend: {:?} ({url})", board.backend());
    let ws = board
        .admin()
        .create_workspace(&Name::parse("Bench")?)
        .await?;
    let column: String = sqlx::query_scalar(
        "SELECT c.id FROM columns c JOIN column_sets s ON s.id = c.set_id \
         WHERE s.workspace_id = $1 ORDER BY c.position LIMIT 1",
    )
    .bind(ws.id.as_str())
    .fetch_one(&pool)
    .await?;
    let vocabulary = vocabulary();
    let started = Instant::now();
    fill(&pool, ws.id.as_str(), &column, &vocabulary).await?;
    println!(
        "filled {} cards and {} comments in {:.1?}",
        cards(),
        cards() * COMMENTS_PER_CARD,
        started.elapsed()
    );
    // The index of existing rows is built when a database is opened whose index
    // is older than the folding: what happens after migration 0012.
    sqlx::query("UPDATE search_state SET folding = 0")
        .execute(&pool)
        .await?;
    board.close().await;
    let started = Instant::now();
    let board = Board::open(&url).await?;
    let terms: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM search_terms")
        .fetch_one(&pool)
        .await?;
    println!(
        "indexed on open: {terms} words in {:.1?}",
        started.elapsed()
    );
    sqlx::query("ANALYZE").execute(&pool).await?;

    // Two-word searches, as typed (the last word is matched as a prefix too),
    // of three kinds by the words' frequencies (vocabulary ranks).
    let kinds: [(&str, [(usize, usize); 3]); 3] = [
        (
            "rare + rare",
            [(2_000, 3_000), (2_500, 1_500), (3_500, 1_200)],
        ),
        ("common + rare", [(3, 2_500), (2_800, 8), (10, 1_800)]),
        ("common + common", [(0, 3), (5, 12), (2, 20)]),
    ];
    let raw_count = |word: String| {
        let pool = pool.clone();
        let ws = ws.id.clone();
        async move {
            sqlx::query_scalar::<_, i64>(
                "SELECT COUNT(*) FROM search_terms WHERE workspace_id = $1 AND word = $2",
            )
            .bind(ws.as_str())
            .bind(word)
            .fetch_one(&pool)
            .await
        }
    };
    let mut every = Vec::new();
    for (kind, queries) in kinds {
        let mut times = Vec::new();
        let mut raw = Vec::new();
        for (a, b) in queries {
            let (first, second) = (&vocabulary[a], &vocabulary[b]);
            let q = format!("{first} {second}");
            let query = SearchQuery::new(SetQuery::workspace(ws.id.clone()), q.clone());
            let (na, nb) = (
                raw_count(fold(first)).await?,
                raw_count(fold(second)).await?,
            );
            let mut found = 0;
            let mut mine = Vec::new();
            for _ in 0..READS {
                let t = Instant::now();
                let page = board.search(&Actor::Operator, &query).await?;
                mine.push(t.elapsed());
                found = page.results.len();
                let t = Instant::now();
                raw_count(fold(first)).await?;
                raw.push(t.elapsed());
            }
            println!(
                "search {q:?} (documents: {na} and {nb} with the whole words): first page of {found}"
            );
            report("  Board::search", &mut mine);
            times.extend(mine);
        }
        let (m, r) = (median(&mut times), median(&mut raw));
        println!("{kind}:");
        report("  Board::search", &mut times);
        report("  raw: COUNT of the index rows of its first word", &mut raw);
        println!(
            "  search p50 / raw p50 = {:.1}",
            m.as_secs_f64() / r.as_secs_f64()
        );
        every.extend(times);
    }
    report("every search", &mut every);

    comment_writes(&board, &pool, &ws.id, &vocabulary).await?;
    board.close().await;
    Ok(())
}

/// Comment creates, interleaved: raw commits of the comment row (A), of the
/// row and its index rows (B), and `Board::create_comment` (C), on one card.
async fn comment_writes(
    board: &Board,
    pool: &AnyPool,
    ws: &board_core::WorkspaceId,
    vocabulary: &[String],
) -> Result<(), Box<dyn std::error::Error>> {
    let card = board
        .create_card(
            &Actor::Operator,
            board_core::NewCard::new(ws.clone(), Name::parse("writes")?),
        )
        .await?;
    let mut rng = Rng(7);
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    let at = "2026-11-24T00:00:00.000Z";
    for i in 0..WRITES {
        let text = rng.text(vocabulary, 8, 16);
        // A: the comment row alone.
        let t = Instant::now();
        let mut tx = pool.begin().await?;
        sqlx::query(
            "INSERT INTO comments (id, card_id, seq, content, author_id, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, NULL, $5, $5)",
        )
        .bind(format!("a{i:023}"))
        .bind(card.id.as_str())
        .bind(-(2 * i as i64) - 1)
        .bind(&text)
        .bind(at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        a.push(t.elapsed());
        // B: the row and its index rows (one multi-row INSERT), as the operation writes them.
        let t = Instant::now();
        let mut tx = pool.begin().await?;
        let id = format!("b{i:023}");
        sqlx::query(
            "INSERT INTO comments (id, card_id, seq, content, author_id, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, NULL, $5, $5)",
        )
        .bind(&id)
        .bind(card.id.as_str())
        .bind(-(2 * i as i64) - 2)
        .bind(&text)
        .bind(at)
        .execute(&mut *tx)
        .await?;
        let mut words: Vec<String> = text.split(' ').map(fold).collect();
        words.sort();
        words.dedup();
        let values: Vec<String> = (0..words.len())
            .map(|k| format!("($1, ${}, $2, $3)", k + 4))
            .collect();
        let sql = format!(
            "INSERT INTO search_terms (doc_id, word, workspace_id, card_id) VALUES {}",
            values.join(", ")
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&id)
            .bind(ws.as_str())
            .bind(card.id.as_str());
        for w in &words {
            q = q.bind(w);
        }
        q.execute(&mut *tx).await?;
        tx.commit().await?;
        b.push(t.elapsed());
        // C: the operation.
        let t = Instant::now();
        board
            .create_comment(&Actor::Operator, &card.id, input(&text)?)
            .await?;
        c.push(t.elapsed());
    }
    let (ma, mb, mc) = (median(&mut a), median(&mut b), median(&mut c));
    report("raw commit: comment row (A)", &mut a);
    report("raw commit: comment row + its index rows (B)", &mut b);
    report("Board::create_comment, index included (C)", &mut c);
    println!(
        "index cost on raw commits: B/A = {:.2}; the operation: C/A = {:.2}, (B - A)/C = {:.0} %",
        mb.as_secs_f64() / ma.as_secs_f64(),
        mc.as_secs_f64() / ma.as_secs_f64(),
        100.0 * (mb.as_secs_f64() - ma.as_secs_f64()) / mc.as_secs_f64()
    );
    Ok(())
}

fn input(text: &str) -> Result<CommentInput, Box<dyn std::error::Error>> {
    Ok(CommentInput {
        content: CommentText::parse(text)?,
        attachment_ids: None,
    })
}

/// The folding of the vocabulary's words (lower case, accents off).
fn fold(w: &str) -> String {
    w.to_lowercase()
        .replace('ç', "c")
        .replace(['ã', 'á'], "a")
        .replace('é', "e")
}

async fn fill(
    pool: &AnyPool,
    ws: &str,
    column: &str,
    vocabulary: &[String],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let base = 1_700_000_000_000_i64;
    let time = |ms: i64| board_core::Timestamp::from_millis(base + ms).to_string();
    let mut tx = pool.begin().await?;
    // Small statements: sqlx's SQLite driver binds each `$N` by name, at a
    // cost that grows with the square of a statement's parameters.
    const BATCH: usize = 100;
    for start in (0..cards()).step_by(BATCH) {
        let end = (start + BATCH).min(cards());
        let mut sql = String::from(
            "INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, \
             updated_at, history_seq) VALUES ",
        );
        let mut binds: Vec<String> = Vec::new();
        for i in start..end {
            let n = binds.len();
            if i > start {
                sql.push_str(", ");
            }
            sql.push_str(&format!(
                "(${}, ${}, NULL, ${}, ${}, {}, ${}, ${}, 0)",
                n + 1,
                n + 2,
                n + 3,
                n + 4,
                (i as i64 + 1) * 65_536,
                n + 5,
                n + 6
            ));
            binds.push(format!("k{i:023}"));
            binds.push(ws.to_string());
            binds.push(column.to_string());
            binds.push(rng.text(vocabulary, 3, 6));
            binds.push(time(i as i64));
            binds.push(time(i as i64 * 7 % 1_000_000));
        }
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for b in &binds {
            q = q.bind(b.clone());
        }
        q.execute(&mut *tx).await?;
    }
    let total = cards() * COMMENTS_PER_CARD;
    for start in (0..total).step_by(BATCH) {
        let end = (start + BATCH).min(total);
        let mut sql = String::from(
            "INSERT INTO comments (id, card_id, seq, content, author_id, created_at, updated_at) VALUES ",
        );
        let mut binds: Vec<String> = Vec::new();
        for i in start..end {
            let n = binds.len();
            if i > start {
                sql.push_str(", ");
            }
            sql.push_str(&format!(
                "(${}, ${}, {}, ${}, NULL, ${}, ${})",
                n + 1,
                n + 2,
                i % COMMENTS_PER_CARD + 1,
                n + 3,
                n + 4,
                n + 4
            ));
            binds.push(format!("m{i:023}"));
            binds.push(format!("k{:023}", i / COMMENTS_PER_CARD));
            binds.push(rng.text(vocabulary, 8, 16));
            binds.push(time(i as i64));
        }
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for b in &binds {
            q = q.bind(b.clone());
        }
        q.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let at = |p: usize| times[(times.len() * p / 100).min(times.len() - 1)];
    println!(
        "{what}: p50 {:.2?}, p95 {:.2?}, min {:.2?}, max {:.2?} ({} runs)",
        at(50),
        at(95),
        times[0],
        times[times.len() - 1],
        times.len()
    );
}
