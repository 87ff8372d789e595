//! The search index (`search_terms`): the folded words of each card title,
//! description (`d:` and the card's id), comment and checklist item, written by the operation that writes the text, in its transaction,
//! so a write that answered is found at once and replaced or deleted text is
//! not. A card's deletion (and a column's, with `DELETE`) removes its
//! documents' rows itself ([`forget_card`], [`forget_column`]): the index
//! keeps no foreign key (migration 0017), whose check on every word of a
//! comment cost a fifth of PostgreSQL's time in a comment `POST`.
//!
//! The words are folded in Rust ([`super::words`]), which a migration cannot
//! run: `search_state.folding` records the folding the index was built with,
//! and [`Board::ensure_search_index`] rebuilds the whole index, once, when a
//! database is opened whose index is older ([`FOLDING`]): after migration 0012
//! (the cards and comments that existed before it), and after any future change
//! of the folding. A copy and an import of a version 3 export carry the index
//! as any table; an import of an older export rebuilds it in its transaction.
//!
//! The rebuild runs in one transaction, in pages of [`PAGE`] documents in primary-key order
//! and multi-row `INSERT`s of [`ROWS_PER_INSERT`] rows, with the secondary index dropped first
//! and created again after the rows (one sort instead of millions of inserts at random
//! places). Whichever process opens the database first rebuilds; the others wait on the
//! `search_state` row and find it done.
//!
//! Without a foreign key, a deletion must see every comment it forgets: it locks what a plain
//! comment's own foreign-key check waits for before it reads them, the card as the deletion
//! takes it (`Lock::CardDeleted`, PostgreSQL `FOR UPDATE`) or the column's cards
//! (`lock_column_cards`). A comment that committed before is forgotten; one after fails its
//! key (404). A row whose card is gone would not be answered anyway: a search joins `cards`.

use sqlx::{AnyConnection, Row};

use crate::board::Board;
use crate::error::Result;
use crate::ids::{CardId, ColumnId, WorkspaceId};
use crate::store::{Deferred, Value, WriteTx};

use super::words;

/// The folding this build indexes with; a database whose `search_state` says
/// less is re-indexed when opened.
pub(crate) const FOLDING: i64 = 1;

/// Rows per `INSERT` (four values each). Small: sqlx's SQLite driver looks
/// each `$N` up by name (`sqlite3_bind_parameter_name`, a scan of the
/// statement's names), so a statement's bind cost grows with the square of its
/// parameters: 8,000 rows per statement made a 6-million-row rebuild take
/// tens of minutes.
const ROWS_PER_INSERT: usize = 100;

/// Documents read per page while rebuilding.
const PAGE: i64 = 5_000;

/// The secondary indexes of `search_terms` (as migrations 0012 and 0017 leave
/// them), dropped while the whole index is rebuilt and created again after.
const SECONDARY: [(&str, &str); 1] = [("search_terms_word", "workspace_id, word, doc_id, card_id")];

/// One document to index: its id (the card's for its title, the comment's for
/// a comment), workspace, card and text.
pub(crate) struct Doc<'a> {
    pub(crate) id: &'a str,
    pub(crate) workspace: &'a str,
    pub(crate) card: &'a str,
    pub(crate) text: &'a str,
}

/// Indexes `doc`, replacing what the index held for it when `replace`.
pub(crate) async fn write(conn: &mut AnyConnection, doc: Doc<'_>, replace: bool) -> Result<()> {
    for statement in statements(doc, replace) {
        statement.run(&mut *conn).await?;
    }
    Ok(())
}

/// [`write()`], deferred to the commit of `tx` ([`WriteTx::defer`]): nothing in
/// a write reads the index back.
pub(crate) fn defer_write(tx: &mut WriteTx, doc: Doc<'_>, replace: bool) {
    for statement in statements(doc, replace) {
        tx.defer(statement);
    }
}

/// The statements that index `doc`, after removing what the index held for
/// it when `replace`.
fn statements(doc: Doc<'_>, replace: bool) -> Vec<Deferred> {
    let mut out = Vec::new();
    if replace {
        out.push(forget_statement(doc.id));
    }
    out.extend(insert_statements(&[doc]));
    out
}

/// Removes what the index holds for the document `id`.
pub(crate) async fn forget(conn: &mut AnyConnection, id: impl AsRef<str>) -> Result<()> {
    forget_statement(id).run(conn).await?;
    Ok(())
}

fn forget_statement(id: impl AsRef<str>) -> Deferred {
    Deferred::new(FORGET_SQL, vec![Value::text(id)])
}

/// The text of [`forget_statement`].
pub(crate) const FORGET_SQL: &str = "DELETE FROM search_terms WHERE doc_id = $1";

/// Removes the words of the card `card` and of its comments, before the card
/// is deleted (its comments go with it), under
/// `Lock::CardDeleted`: no comment on the card commits after
/// this statement reads them.
pub(crate) async fn forget_card(conn: &mut AnyConnection, card: &CardId) -> Result<()> {
    forget_docs(conn, "id = $1", "c.card_id = $1", card).await
}

/// Removes the words of every card of the column `column` and of their
/// comments, before they are deleted, under [`WriteTx::lock_column_cards`].
pub(crate) async fn forget_column(conn: &mut AnyConnection, column: &ColumnId) -> Result<()> {
    forget_docs(conn, "column_id = $1", "k.column_id = $1", column).await
}

/// Removes the words of the cards `cards` (a condition on `cards`) and of
/// their comments (`comments`: a condition on `comments c JOIN cards k`), by
/// their documents' ids (the primary key's first column), `$1` bound to `key`.
async fn forget_docs(
    conn: &mut AnyConnection,
    cards: &str,
    comments: &str,
    key: &(impl for<'q> sqlx::Encode<'q, sqlx::Any> + sqlx::Type<sqlx::Any> + Sync),
) -> Result<()> {
    let sql = format!(
        "DELETE FROM search_terms WHERE doc_id IN (SELECT id FROM cards WHERE {cards} \
         UNION ALL SELECT 'd:' || id FROM cards WHERE {cards} \
         UNION ALL SELECT c.id FROM comments c JOIN cards k ON k.id = c.card_id WHERE {comments} \
         UNION ALL SELECT c.id FROM checklist_items c JOIN cards k ON k.id = c.card_id \
                   WHERE {comments})"
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(key)
        .execute(conn)
        .await?;
    Ok(())
}

/// The text of an `INSERT` of `rows` words (four values each).
pub(crate) fn insert_sql(rows: usize) -> String {
    let values: Vec<String> = (0..rows)
        .map(|i| {
            let b = i * 4;
            format!("(${}, ${}, ${}, ${})", b + 1, b + 2, b + 3, b + 4)
        })
        .collect();
    format!(
        "INSERT INTO search_terms (doc_id, word, workspace_id, card_id) VALUES {}",
        values.join(", ")
    )
}

/// The title document of a card.
pub(crate) fn title<'a>(card: &'a CardId, ws: &'a WorkspaceId, title: &'a str) -> Doc<'a> {
    Doc {
        id: card.as_str(),
        workspace: ws.as_str(),
        card: card.as_str(),
        text: title,
    }
}

/// The id of a card's description document: `d:` and the card's id (no
/// cuid2 holds a colon, so it is no card's, comment's or item's id).
pub(crate) fn description_id(card: &CardId) -> String {
    format!("d:{card}")
}

/// The description document of a card, whose id is `id` ([`description_id`]).
pub(crate) fn description<'a>(
    id: &'a str,
    card: &'a CardId,
    ws: &'a WorkspaceId,
    text: &'a str,
) -> Doc<'a> {
    Doc {
        id,
        workspace: ws.as_str(),
        card: card.as_str(),
        text,
    }
}

/// Removes what the index holds for the document `id`, with the commit of `tx`.
pub(crate) fn defer_forget(tx: &mut WriteTx, id: impl AsRef<str>) {
    tx.defer(forget_statement(id));
}

/// Inserts the words of `docs`, in multi-row statements.
pub(crate) async fn insert(conn: &mut AnyConnection, docs: &[Doc<'_>]) -> Result<()> {
    for statement in insert_statements(docs) {
        statement.run(&mut *conn).await?;
    }
    Ok(())
}

/// The multi-row `INSERT`s of the words of `docs`.
fn insert_statements(docs: &[Doc<'_>]) -> Vec<Deferred> {
    let mut rows: Vec<(&Doc<'_>, String)> = Vec::new();
    for doc in docs {
        rows.extend(words::distinct(doc.text).into_iter().map(|w| (doc, w)));
    }
    rows.chunks(ROWS_PER_INSERT)
        .map(|chunk| {
            let sql = insert_sql(chunk.len());
            let binds = chunk
                .iter()
                .flat_map(|(doc, word)| {
                    [doc.id, word.as_str(), doc.workspace, doc.card].map(Value::text)
                })
                .collect();
            Deferred::new(sql, binds)
        })
        .collect()
}

/// Rebuilds the whole index from the cards and comments, in the caller's
/// transaction, page by page; then records [`FOLDING`].
pub(crate) async fn rebuild(conn: &mut AnyConnection) -> Result<()> {
    sqlx::query("DELETE FROM search_terms")
        .execute(&mut *conn)
        .await?;
    // The secondary indexes are built after the rows (one sort each) rather
    // than kept up to date row by row in random key order; the rows arrive in
    // primary-key order (documents by id, each one's words sorted).
    for (name, _) in SECONDARY {
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP INDEX IF EXISTS {name}")))
            .execute(&mut *conn)
            .await?;
    }
    let pages = [
        "SELECT id, workspace_id, id AS card_id, title AS text FROM cards \
         WHERE id > $1 ORDER BY id LIMIT $2",
        // Descriptions: `d:` and the card's id, which sorts as the card's id.
        "SELECT 'd:' || id AS id, workspace_id, id AS card_id, description AS text FROM cards \
         WHERE id > substr($1, 3) ORDER BY id LIMIT $2",
        "SELECT c.id, k.workspace_id, c.card_id, c.content AS text \
         FROM comments c JOIN cards k ON k.id = c.card_id \
         WHERE c.id > $1 ORDER BY c.id LIMIT $2",
        "SELECT c.id, k.workspace_id, c.card_id, c.text \
         FROM checklist_items c JOIN cards k ON k.id = c.card_id \
         WHERE c.id > $1 ORDER BY c.id LIMIT $2",
    ];
    for sql in pages {
        let mut after = String::new();
        loop {
            let rows = sqlx::query(sql)
                .bind(&after)
                .bind(PAGE)
                .fetch_all(&mut *conn)
                .await?;
            let mut owned: Vec<[String; 4]> = Vec::with_capacity(rows.len());
            for r in &rows {
                owned.push([
                    r.try_get("id")?,
                    r.try_get("workspace_id")?,
                    r.try_get("card_id")?,
                    r.try_get("text")?,
                ]);
            }
            let docs: Vec<Doc<'_>> = owned
                .iter()
                .map(|[id, ws, card, text]| Doc {
                    id,
                    workspace: ws,
                    card,
                    text,
                })
                .collect();
            insert(conn, &docs).await?;
            match owned.last() {
                Some(last) if owned.len() as i64 == PAGE => after = last[0].clone(),
                _ => break,
            }
        }
    }
    for (name, columns) in SECONDARY {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "CREATE INDEX {name} ON search_terms ({columns})"
        )))
        .execute(&mut *conn)
        .await?;
    }
    // One row, whatever was there (an import of an older export has none).
    sqlx::query("DELETE FROM search_state")
        .execute(&mut *conn)
        .await?;
    sqlx::query("INSERT INTO search_state (folding) VALUES ($1)")
        .bind(FOLDING)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

impl Board {
    /// Builds the search index when the database's is older than this build's
    /// folding (after migration 0012, or a change of the folding): once, in one
    /// transaction, whichever process opens the database first (the others
    /// wait on the `search_state` row, then find it done). Called by
    /// [`Board::open_with`].
    pub(crate) async fn ensure_search_index(&self) -> Result<()> {
        let folding: Option<i64> =
            sqlx::query_scalar("SELECT CAST(MAX(folding) AS BIGINT) FROM search_state")
                .fetch_one(&self.pool)
                .await?;
        if folding.unwrap_or(0) >= FOLDING {
            return Ok(());
        }
        let mut tx = self.write_unlocked().await?;
        // The row lock (PostgreSQL; SQLite's write lock is already held), then
        // the check again: another process may have built it meanwhile.
        sqlx::query("UPDATE search_state SET folding = folding")
            .execute(&mut *tx)
            .await?;
        let folding: Option<i64> =
            sqlx::query_scalar("SELECT CAST(MAX(folding) AS BIGINT) FROM search_state")
                .fetch_one(&mut *tx)
                .await?;
        if folding.unwrap_or(0) < FOLDING {
            rebuild(&mut tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}
