//! The rows of an import's [`Plan`], written table by table (parents first)
//! in multi-row `INSERT`s of at most [`PARAMS`] values each, then the search
//! index's words, inside the caller's write transaction.

use sqlx::AnyConnection;

use super::plan::{NewCard, Plan};
use crate::comments;
use crate::error::Result;
use crate::ids::{ColumnSetId, WorkspaceId};
use crate::search::index::{self, Doc};
use crate::store::{column_version_bump, Backend, WriteTx};

/// The most values bound to one statement: sqlx's SQLite driver looks each
/// `$N` up by name, so a statement's bind cost grows with the square of its
/// values; a thousand keeps it small and the statements few.
const PARAMS: usize = 1_000;

/// One value of a row.
enum V {
    Text(String),
    Int(i64),
    Null,
}

fn t(s: impl AsRef<str>) -> V {
    V::Text(s.as_ref().to_string())
}

fn opt(s: Option<impl AsRef<str>>) -> V {
    s.map_or(V::Null, t)
}

/// Inserts `rows` into `table` (`cols`), a few hundred rows a statement.
async fn insert(
    conn: &mut AnyConnection,
    table: &str,
    cols: &[&str],
    rows: Vec<Vec<V>>,
) -> Result<()> {
    let per = (PARAMS / cols.len()).max(1);
    for chunk in rows.chunks(per) {
        let mut sql = format!("INSERT INTO {table} ({}) VALUES ", cols.join(", "));
        let mut n = 0;
        for (r, _) in chunk.iter().enumerate() {
            sql.push_str(if r == 0 { "(" } else { ", (" });
            let marks: Vec<String> = (0..cols.len())
                .map(|_| {
                    n += 1;
                    format!("${n}")
                })
                .collect();
            sql.push_str(&marks.join(", "));
            sql.push(')');
        }
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for row in chunk {
            for v in row {
                q = match v {
                    V::Text(s) => q.bind(s.as_str()),
                    V::Int(i) => q.bind(*i),
                    V::Null => q.bind(None::<&str>),
                };
            }
        }
        q.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Writes every row of `plan` in `tx`, which holds the workspace's and the
/// set's locks; `now` is the time of the import.
pub(super) async fn write(
    tx: &mut WriteTx,
    backend: Backend,
    ws: &WorkspaceId,
    project: Option<&str>,
    set: &ColumnSetId,
    plan: &Plan,
    now: &str,
) -> Result<()> {
    let conn: &mut AnyConnection = tx;
    let columns = plan.columns.iter().map(|(id, name, position)| {
        vec![
            t(id),
            t(set),
            t(name),
            t("slate"),
            V::Int(*position),
            V::Int(0),
            t(now),
        ]
    });
    let cols = [
        "id",
        "set_id",
        "name",
        "accent",
        "position",
        "done",
        "created_at",
    ];
    insert(conn, "columns", &cols, columns.collect()).await?;
    let labels = plan.labels.iter().map(|(id, name, key, accent, position)| {
        vec![
            t(id),
            t(ws),
            t(name),
            t(key),
            t(accent),
            V::Int(*position),
            t(now),
        ]
    });
    let cols = [
        "id",
        "workspace_id",
        "name",
        "name_key",
        "accent",
        "position",
        "created_at",
    ];
    insert(conn, "labels", &cols, labels.collect()).await?;
    let cards = plan.cards.iter().map(|c| {
        vec![
            t(&c.id),
            t(ws),
            opt(project),
            t(&c.column),
            t(&c.title),
            V::Int(c.position),
            t(&c.created_at),
            t(now),
            V::Int(c.history),
            opt(c.created_by.as_ref()),
            opt(c.archived.then_some(now)),
            t(&c.description),
            opt(c.due_at.as_ref()),
        ]
    });
    let cols = [
        "id",
        "workspace_id",
        "project_id",
        "column_id",
        "title",
        "position",
        "created_at",
        "updated_at",
        "history_seq",
        "created_by",
        "archived_at",
        "description",
        "due_at",
    ];
    insert(conn, "cards", &cols, cards.collect()).await?;
    let archives = plan.cards.iter().filter(|c| c.archived);
    let archives = archives.map(|c| vec![t(&c.id), t(now)]);
    insert(
        conn,
        "card_archives",
        &["card_id", "archived_at"],
        archives.collect(),
    )
    .await?;
    let history = plan.history.iter().map(|e| {
        vec![
            t(&e.id),
            t(&e.card),
            V::Int(e.seq),
            opt(e.from.as_ref().map(|f| &f.0)),
            t(&e.to_name),
            t(&e.at),
            t(&e.to_column),
            V::Int(i64::from(e.to_done)),
            opt(e.from.as_ref().map(|f| &f.1)),
            opt(e.from.as_ref().map(|f| &f.2)),
            opt(e.actor.as_ref()),
        ]
    });
    let cols = [
        "id",
        "card_id",
        "seq",
        "from_name",
        "to_name",
        "moved_at",
        "to_column_id",
        "to_done",
        "from_column_id",
        "from_at",
        "actor_id",
    ];
    insert(conn, "history", &cols, history.collect()).await?;
    let marks = plan.card_labels.iter().map(|(c, l)| vec![t(c), t(l)]);
    insert(
        conn,
        "card_labels",
        &["card_id", "label_id"],
        marks.collect(),
    )
    .await?;
    let assignees = plan
        .assignees
        .iter()
        .map(|(c, a)| vec![t(c), t(ws), t(a), t(now)]);
    let cols = ["card_id", "workspace_id", "account_id", "assigned_at"];
    insert(conn, "card_assignees", &cols, assignees.collect()).await?;
    let items = plan.items.iter().map(|i| {
        vec![
            t(&i.id),
            t(&i.card),
            t(&i.text),
            V::Int(i64::from(i.done)),
            V::Int(i.position),
            t(now),
        ]
    });
    let cols = ["id", "card_id", "text", "done", "position", "created_at"];
    insert(conn, "checklist_items", &cols, items.collect()).await?;
    let numbered = plan.comments.iter().filter_map(|c| {
        let seq = c.seq?;
        Some(vec![
            t(&c.id),
            t(&c.card),
            V::Int(seq),
            t(&c.content),
            opt(c.author.as_ref()),
            t(&c.at),
            t(&c.at),
        ])
    });
    let cols = [
        "id",
        "card_id",
        "seq",
        "content",
        "author_id",
        "created_at",
        "updated_at",
    ];
    insert(conn, "comments", &cols, numbered.collect()).await?;
    // Comments on cards of an earlier import take their seq in SQL, as any
    // comment does, one statement each.
    let sql = comments::insert_sql(backend);
    for c in plan.comments.iter().filter(|c| c.seq.is_none()) {
        sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
            .bind(&c.id)
            .bind(c.card.as_str())
            .bind(c.content.as_str())
            .bind(&c.author)
            .bind(c.at.as_str())
            .execute(&mut *conn)
            .await?;
    }
    let remember = plan
        .remember
        .iter()
        .map(|(kind, trello, local)| vec![t(set), t(kind), t(trello), t(local)]);
    let cols = ["set_id", "kind", "trello_id", "local_id"];
    insert(conn, "trello_ids", &cols, remember.collect()).await?;
    let described: Vec<(String, &NewCard)> = plan
        .cards
        .iter()
        .filter(|c| !c.description.is_empty())
        .map(|c| (index::description_id(&c.id), c))
        .collect();
    let mut all = docs(plan, ws);
    all.extend(
        described
            .iter()
            .map(|(id, c)| index::description(id, &c.id, ws, &c.description)),
    );
    index::insert(conn, &all).await?;
    for column in &plan.touched {
        tx.defer(column_version_bump(column));
    }
    Ok(())
}

/// The search index's documents of the new rows but the descriptions: each
/// card's title, each comment and item.
fn docs<'a>(plan: &'a Plan, ws: &'a WorkspaceId) -> Vec<Doc<'a>> {
    let mut docs = Vec::new();
    for c in &plan.cards {
        docs.push(index::title(&c.id, ws, &c.title));
    }
    for c in &plan.comments {
        docs.push(Doc {
            id: c.id.as_str(),
            workspace: ws.as_str(),
            card: c.card.as_str(),
            text: &c.content,
        });
    }
    for i in &plan.items {
        docs.push(Doc {
            id: i.id.as_str(),
            workspace: ws.as_str(),
            card: i.card.as_str(),
            text: &i.text,
        });
    }
    docs
}
