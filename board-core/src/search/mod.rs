//! Search (api.md §19): cards whose title, description, or one of whose
//! checklist items or comments (api.md §24), holds every word of a query (case- and accent-insensitive; whole words, the last
//! one a prefix), title matches first, then by `updatedAt` (newest first), then
//! by id; paged by a keyset cursor.
//!
//! Both backends read the same index (`search_terms`, written in the
//! transaction of each change: [`index`]) with the same statement, and order by
//! the contract's rule rather than a backend's rank, so they return the same
//! cards in the same order for the same data. Snippets are cut in Rust.
//!
//! **Why not FTS5 and `tsvector`.** SQLite's FTS5 and PostgreSQL's `to_tsvector` tokenize
//! differently (`unicode61` folds diacritics and splits on its own classes; `simple` keeps
//! accents unless the `unaccent` extension is installed, and its prefix match applies to
//! lexemes, not our words) and rank differently (`bm25`, `ts_rank`). Two tokenizers to keep
//! in step, an extension not every PostgreSQL has, and an order neither rank gives: so the
//! folding is ours ([`words`]) and both backends store it in one plain table,
//! `search_terms (doc_id, word, workspace_id, card_id)`, one row per distinct word of a
//! document (a card's title, `doc_id` = the card's id; or a comment), indexed by
//! `search_terms_word (workspace_id, word, doc_id, card_id)`. `word` compares bytewise on
//! both (PostgreSQL `COLLATE "C"`), so the last word of a query is a range
//! `word >= p AND word < p || U+10FFFF` and every other word an equality.
//!
//! **The statement** enters the index by the rarest term: a first CTE counts each term's rows
//! (a covering range of `search_terms_word`, capped), and the documents are one `UNION ALL`
//! branch per term, driven by that term, each other term an `EXISTS` on the same document.
//! A branch's workspace is null unless its term is the rarest, so the other branches read
//! nothing. A query's cost follows its rarest word; two common words remain the slow case.
//! The documents are then grouped by card (`title_hit`), joined to the cards (project,
//! archived, cursor) and ordered by `title_hit DESC, updated_at DESC, id`. A card lists its
//! title's match and at most [`MAX_COMMENT_MATCHES`] matching comments, each with a snippet
//! around the first matching word.
//!
//! **Paging** is a keyset on `(title_hit, updated_at, id)`. A card edited while a client pages
//! may move in the order (its `updatedAt` changed), as in any list ordered by a mutable key.

pub(crate) mod index;
mod words;

use serde::Serialize;
use sqlx::{FromRow, Row};

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::cards::{Card, CARD_COLUMNS};
use crate::error::{Result, ValidationErrors};
use crate::ids::{CardId, ChecklistItemId, CommentId};
use crate::paging;
use crate::query::SetQuery;

use words::Terms;

/// The longest query, in characters.
pub const MAX_QUERY: usize = 200;

/// The default page size.
const DEFAULT_LIMIT: u16 = 20;

/// At most this many matching comments are listed per card (its title aside).
pub const MAX_COMMENT_MATCHES: usize = 10;

/// The query of `GET /api/search`: the workspace (and project), the text, and
/// the page. Parameters are kept as given and checked after the access check.
///
/// ```
/// use board_core::{SearchQuery, SetQuery};
/// # let ws = board_core::WorkspaceId::parse("ckv7q2x0a0000abcdefghijk").unwrap();
/// let query = SearchQuery::new(SetQuery::workspace(ws), "acao rev").archived(true).limit(10);
/// # let _ = query.after(None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    set: SetQuery,
    q: Option<String>,
    archived: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
}

impl SearchQuery {
    /// The first page of the search for `q` in `set`'s workspace (or project),
    /// archived cards left out.
    pub fn new(set: SetQuery, q: impl Into<String>) -> SearchQuery {
        SearchQuery {
            set,
            q: Some(q.into()),
            archived: None,
            limit: None,
            cursor: None,
        }
    }

    /// The query parameters `tenant`, `project`, `q`, `archived`, `limit` and
    /// `cursor` (each `None` when absent).
    pub fn from_query(
        tenant: Option<&str>,
        project: Option<&str>,
        q: Option<&str>,
        archived: Option<&str>,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<SearchQuery> {
        Ok(SearchQuery {
            set: SetQuery::from_query(tenant, project)?,
            q: q.map(str::to_string),
            archived: archived.map(str::to_string),
            limit: limit.map(str::to_string),
            cursor: cursor.map(str::to_string),
        })
    }

    /// Includes archived cards (`archived=true`).
    pub fn archived(mut self, archived: bool) -> SearchQuery {
        self.archived = Some(archived.to_string());
        self
    }

    /// Pages of `n` cards (1..=200).
    pub fn limit(mut self, n: u16) -> SearchQuery {
        self.limit = Some(n.to_string());
        self
    }

    /// The page after the one whose `nextCursor` is `cursor` (`None`: the first).
    pub fn after(mut self, cursor: Option<String>) -> SearchQuery {
        self.cursor = cursor;
        self
    }
}

/// Where a card matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SearchMatch {
    /// `title`, `description`, `checklist` or `comment`.
    pub field: &'static str,
    /// The comment, for a comment match; null otherwise.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub comment_id: Option<CommentId>,
    /// The checklist item, for a checklist match (api.md §24); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub item_id: Option<ChecklistItemId>,
    /// The text around the first matching word (`…` where text was left out).
    pub snippet: String,
}

/// A card found, with where it matched (its title first, then its comments in
/// thread order, at most [`MAX_COMMENT_MATCHES`] of them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SearchResult {
    /// The card.
    pub card: Card,
    /// Where it matched.
    pub matches: Vec<SearchMatch>,
}

/// A page of search results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SearchPage {
    /// The cards of this page, best first.
    pub results: Vec<SearchResult>,
    /// The `cursor` of the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// The last character there is: a prefix's words all sort below the prefix
/// followed by it (words compare bytewise on both backends).
const AFTER_ALL: char = '\u{10FFFF}';

/// Search (api.md §19): the operations of `search/mod.rs`.
impl Board {
    /// Searches the titles and comments of a workspace's cards, or of one
    /// project's (Viewer). See the module documentation for the rules.
    pub async fn search(&self, actor: &Actor, query: &SearchQuery) -> Result<SearchPage> {
        let ws = query.set.workspace_id();
        self.require(&self.pool, actor, ws, Role::Viewer).await?;
        let q = query.q.as_deref().unwrap_or_default();
        let terms = check_q(q)?;
        let archived = match query.archived.as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(ValidationErrors::one(
                    "archived",
                    format!("Expected true or false, received {other:?}"),
                ))
            }
        };
        let limit = paging::limit(query.limit.as_deref(), DEFAULT_LIMIT)?;
        let after = match &query.cursor {
            Some(c) => Some(paging::decode(c, 3)?),
            None => None,
        };
        if query.set.project_key().is_some() {
            self.set_in_effect(&self.pool, ws, query.set.project_key(), "project")
                .await?;
        }
        let title_key = match &after {
            Some(keys) => Some(keys[0].parse::<i64>().map_err(|_| {
                ValidationErrors::one("cursor", "Expected the nextCursor of the previous page")
            })?),
            None => None,
        };
        let sql = search_sql(&terms);
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(ws)
            .bind(query.set.project_id())
            .bind(i64::from(archived))
            .bind(title_key)
            .bind(after.as_ref().map(|k| k[1].clone()))
            .bind(after.as_ref().map(|k| k[2].clone()))
            .bind(i64::from(limit) + 1);
        for word in &terms.exact {
            q = q.bind(word);
        }
        let upper = format!("{}{AFTER_ALL}", terms.prefix);
        q = q.bind(&terms.prefix).bind(upper);
        let rows = q.fetch_all(&self.pool).await?;
        let mut found: Vec<(Card, i64)> = Vec::with_capacity(rows.len());
        for r in &rows {
            found.push((Card::from_row(r)?, r.try_get("title_hit")?));
        }
        let next_cursor = if found.len() > usize::from(limit) {
            found.truncate(usize::from(limit));
            found.last().map(|(card, hit)| {
                paging::encode(&[&hit.to_string(), card.updated_at.as_str(), card.id.as_str()])
            })
        } else {
            None
        };
        let results = self.with_matches(&terms, found).await?;
        Ok(SearchPage {
            results,
            next_cursor,
        })
    }

    /// Each card found with its matches: the title's, then its matching
    /// comments' (read in one statement, checked with the index's folding).
    async fn with_matches(
        &self,
        terms: &Terms,
        found: Vec<(Card, i64)>,
    ) -> Result<Vec<SearchResult>> {
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let marks = crate::store::placeholders(1, found.len());
        // The comments and the checklist items of the cards found, in one
        // statement: each card's items in order, then its comments in order.
        let sql = format!(
            "SELECT CAST(0 AS BIGINT) AS kind, id, card_id, text, '' AS o1, position AS o2 \
             FROM checklist_items WHERE card_id IN ({marks}) \
             UNION ALL SELECT CAST(1 AS BIGINT) AS kind, id, card_id, content AS text, created_at AS o1, \
             seq AS o2 FROM comments WHERE card_id IN ({marks}) \
             ORDER BY card_id, kind, o1, o2"
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (card, _) in &found {
            q = q.bind(&card.id);
        }
        let rows = q.fetch_all(&self.pool).await?;
        // (card, is a comment, id, text) of each matching one.
        let mut texts: Vec<(CardId, bool, String, String)> = Vec::new();
        for r in &rows {
            let text: String = r.try_get("text")?;
            if terms.all_in(&text) {
                let kind: i64 = r.try_get("kind")?;
                texts.push((r.try_get("card_id")?, kind == 1, r.try_get("id")?, text));
            }
        }
        Ok(found
            .into_iter()
            .map(|(card, title_hit)| {
                let mut matches = Vec::new();
                // A title is plain text; the other fields are Markdown, and
                // their snippets are of the words a reader sees.
                let at = |field, text: &str| SearchMatch {
                    field,
                    comment_id: None,
                    item_id: None,
                    snippet: if field == "title" {
                        terms.snippet(text)
                    } else {
                        terms.snippet(&crate::markdown::plain_text(text))
                    },
                };
                if title_hit == 1 {
                    matches.push(at("title", &card.title));
                }
                if terms.all_in(&card.description) {
                    matches.push(at("description", &card.description));
                }
                let mine = texts.iter().filter(|(c, _, _, _)| *c == card.id);
                for (_, _, id, text) in mine.clone().filter(|t| !t.1) {
                    matches.push(SearchMatch {
                        item_id: Some(ChecklistItemId::from_db(id.clone())),
                        ..at("checklist", text)
                    });
                }
                let comments = mine.filter(|t| t.1).take(MAX_COMMENT_MATCHES);
                for (_, _, id, text) in comments {
                    matches.push(SearchMatch {
                        comment_id: Some(CommentId::from_db(id.clone())),
                        ..at("comment", text)
                    });
                }
                SearchResult { card, matches }
            })
            .collect())
    }
}

/// `q`'s terms: 422 on `q` when it is missing, empty, longer than
/// [`MAX_QUERY`] characters, or holds no letter or digit.
fn check_q(q: &str) -> Result<Terms> {
    let n = q.chars().count();
    if q.trim().is_empty() {
        return Err(ValidationErrors::one(
            "q",
            "Required: the words to search for (1 to 200 characters)",
        ));
    }
    if n > MAX_QUERY {
        return Err(ValidationErrors::one(
            "q",
            format!("Expected at most {MAX_QUERY} characters, received {n}"),
        ));
    }
    Terms::of(q).ok_or_else(|| {
        ValidationErrors::one("q", "Expected at least one word (a letter or a digit)")
    })
}

/// The most index rows counted per term to choose the term that drives the
/// search (terms past it tie, and the first of them drives).
const COUNT_CAP: i64 = 25_000;

/// The search statement. Binds: `$1` workspace, `$2` project (or null), `$3`
/// archived included (0/1), `$4`..`$6` the cursor (title hit, updatedAt, id; or
/// nulls), `$7` the limit + 1, then each exact word, then the prefix and its
/// upper bound.
///
/// The index is entered by the rarest term: `c` counts each term's index rows
/// (up to [`COUNT_CAP`]), and the query is one branch per term, driven by that
/// term, each other term one `EXISTS` on the same document; a branch's
/// workspace is null (its index range empty, so it reads nothing) unless its
/// term is the rarest (the first of the rarest on a tie). The scalar subquery
/// is read once on both backends (SQLite: once per statement; PostgreSQL: an
/// init plan). A single term (a prefix alone) is one branch.
fn search_sql(terms: &Terms) -> String {
    let n = terms.exact.len();
    let (p, upper) = (8 + n, 9 + n);
    // Term j's condition on the alias `a`: the exact words, then the prefix.
    let cond = |a: &str, j: usize| {
        if j < n {
            format!("{a}.word = ${}", 8 + j)
        } else {
            format!("{a}.word >= ${p} AND {a}.word < ${upper}")
        }
    };
    let k = n + 1;
    let counts: Vec<String> = (0..k)
        .map(|j| {
            format!(
                "(SELECT COUNT(*) FROM (SELECT 1 AS x FROM search_terms s WHERE s.workspace_id = $1 \
                 AND {} LIMIT {COUNT_CAP}) s{j}) AS c{j}",
                cond("s", j)
            )
        })
        .collect();
    let branch = |j: usize| {
        let ws = if k == 1 {
            "$1".to_string()
        } else {
            let guard: Vec<String> = (0..k)
                .filter(|&i| i != j)
                .map(|i| {
                    if i < j {
                        format!("c{j} < c{i}")
                    } else {
                        format!("c{j} <= c{i}")
                    }
                })
                .collect();
            format!(
                "(SELECT CASE WHEN {} THEN $1 END FROM c)",
                guard.join(" AND ")
            )
        };
        let rest: String = (0..k)
            .filter(|&i| i != j)
            .map(|i| {
                format!(
                    " AND EXISTS (SELECT 1 FROM search_terms t{i} WHERE t{i}.doc_id = d.doc_id AND {})",
                    cond(&format!("t{i}"), i)
                )
            })
            .collect();
        format!(
            "SELECT d.card_id, d.doc_id FROM search_terms d \
             WHERE d.workspace_id = {ws} AND {}{rest}",
            cond("d", j)
        )
    };
    let with_counts = if k == 1 {
        String::new()
    } else {
        format!("c AS (SELECT {}), ", counts.join(", "))
    };
    let branches: Vec<String> = (0..k).map(branch).collect();
    format!(
        "WITH {with_counts}m AS ( {} ), \
         r AS ( \
           SELECT card_id, CAST(MAX(CASE WHEN doc_id = card_id THEN 1 ELSE 0 END) AS BIGINT) AS title_hit \
           FROM m GROUP BY card_id \
         ) \
         SELECT {CARD_COLUMNS}, r.title_hit FROM r JOIN cards k ON k.id = r.card_id \
         WHERE ($2 IS NULL OR k.project_id = $2) AND ($3 = 1 OR k.archived_at IS NULL) \
           AND ($4 IS NULL OR r.title_hit < $4 OR (r.title_hit = $4 AND \
                (k.updated_at < $5 OR (k.updated_at = $5 AND k.id > $6)))) \
         ORDER BY r.title_hit DESC, k.updated_at DESC, k.id LIMIT $7",
        branches.join(" UNION ALL ")
    )
}
