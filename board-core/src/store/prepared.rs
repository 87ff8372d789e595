//! PostgreSQL: the statements every connection prepares when it opens, so that a
//! [`Batch`](super::batch::Batch) (one simple query, which takes no parameters) runs them by
//! name, `EXECUTE name(literals)`, with a plan PostgreSQL keeps, instead of parsing and
//! planning their text with literals at every write.
//!
//! The texts are the hot writes' fused and deferred statements (the locks, a card write's
//! re-read, a new card's column, a history entry, a new comment, its words, one event, the
//! notifications of a comment or a move),
//! handed over by the crate when it opens a board (`hot_statements` in `lib.rs`, then
//! `Backend::prepared` adds the store's own). A pool's connections `PREPARE` them in their
//! set-up round trip; the migrations run first, on a connection of their own, since `PREPARE`
//! needs the tables. Every parameter is `text`, as sqlx binds a [`Value`] when the same
//! statement runs on its own ([`Deferred::run`](super::batch::Deferred::run)), so both paths
//! type it alike.
//!
//! The invariant: **a statement a batch sends is prepared only under its exact text**. So each
//! hot statement's text is built by one function or constant (`history::ENTRY_SQL`,
//! `comments::insert_sql`, `search::index::insert_sql`, …), used both by the statement and by
//! the list. A text not in the list is sent with literals, as before: slower, never wrong.
//! `board-server/tests/statements.rs` checks on PostgreSQL that a comment `POST` and a move
//! send no hot statement's text, only names.

use std::collections::HashMap;

use super::value::{enough, parameters, Value};
use crate::error::Result;

/// The prepared statements: each text's name and number of parameters.
#[derive(Debug, Default)]
pub(crate) struct Prepared {
    by_text: HashMap<String, (String, usize)>,
}

impl Prepared {
    /// The statements `texts` (each with `$1`, `$2`, … as its parameters),
    /// named in their order (duplicates once).
    pub(crate) fn new(texts: impl IntoIterator<Item = String>) -> Prepared {
        let mut by_text = HashMap::new();
        for text in texts {
            let n = by_text.len();
            by_text
                .entry(text)
                .or_insert_with_key(|t: &String| (format!("board_p{n}"), parameters(t)));
        }
        Prepared { by_text }
    }

    /// What a new connection runs to prepare every statement (nothing when
    /// there are none).
    pub(crate) fn setup_sql(&self) -> String {
        let mut all: Vec<(&String, &(String, usize))> = self.by_text.iter().collect();
        all.sort_by(|a, b| a.1 .0.cmp(&b.1 .0));
        all.iter()
            .map(|(text, (name, n))| match n {
                0 => format!("PREPARE {name} AS {text}"),
                n => format!("PREPARE {name} ({}) AS {text}", vec!["text"; *n].join(", ")),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// `sql` run by name with `values` as literals, when it is prepared
    /// (`None` when not); fewer values than its parameters is an
    /// `Error::Internal`.
    pub(crate) fn execute(&self, sql: &str, values: &[Value]) -> Result<Option<String>> {
        let Some((name, n)) = self.by_text.get(sql) else {
            return Ok(None);
        };
        enough(sql, values.len(), *n)?;
        if *n == 0 {
            return Ok(Some(format!("EXECUTE {name}")));
        }
        let args: Vec<String> = values[..*n].iter().map(Value::literal).collect();
        Ok(Some(format!("EXECUTE {name}({})", args.join(", "))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prepared_statement_runs_by_name_with_every_parameter_as_a_literal() {
        let p = Prepared::new([
            "INSERT INTO t VALUES ($1, $3, '$9')".to_string(),
            "SELECT 1".to_string(),
            "SELECT 1".to_string(),
        ]);
        assert_eq!(
            p.setup_sql(),
            "PREPARE board_p0 (text, text, text) AS INSERT INTO t VALUES ($1, $3, '$9'); \
             PREPARE board_p1 AS SELECT 1"
        );
        let three = [Value::text("it's"), Value::Null, Value::text("c")];
        assert_eq!(
            p.execute("INSERT INTO t VALUES ($1, $3, '$9')", &three)
                .unwrap()
                .as_deref(),
            Some("EXECUTE board_p0(E'it''s', NULL, E'c')")
        );
        assert!(p
            .execute("INSERT INTO t VALUES ($1, $3, '$9')", &three[..2])
            .is_err());
        assert_eq!(
            p.execute("SELECT 1", &[]).unwrap().as_deref(),
            Some("EXECUTE board_p1")
        );
        assert_eq!(p.execute("SELECT 2", &[]).unwrap(), None);
    }
}
