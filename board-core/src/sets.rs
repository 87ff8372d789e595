//! Column sets: a workspace's tenant set and its projects' sets, and which
//! set is in effect for a card (the `columnScope` rule, api.md §5).

use sqlx::any::AnyRow;
use sqlx::{Any, Executor, Row};

use crate::access::{check_role_of, token_from, Bearer, Role, TOKEN_COLUMNS};
use crate::board::Board;
use crate::error::{Error, Result, ValidationErrors};
use crate::ids::{ColumnSetId, ProjectId, WorkspaceId};

impl Board {
    /// The set in effect for a card of `project` (or of no project) in `ws`:
    /// the project's own set when `columnScope` is `PROJECT` and that set has a
    /// column, otherwise the tenant set. A project outside `ws` is a 422 on
    /// `field` (the body field or query parameter that named it).
    pub(crate) async fn set_in_effect<'e, E>(
        &self,
        exec: E,
        ws: &WorkspaceId,
        project: Option<&str>,
        field: &str,
    ) -> Result<ColumnSetId>
    where
        E: Executor<'e, Database = Any>,
    {
        let row = set_row(exec, ws, project, "").await?;
        effect_of(&row, project, field)
    }

    /// [`Board::set_in_effect`] and, in the same statement, the versions that
    /// tag the columns of that set (api.md §22): the set's, the settings' and
    /// the sum of its columns' (a move to a column's end advances only its
    /// target column's version); with `cards`, also those of its cards
    /// ([`CARDS_VERSIONS`]: the board's tag).
    pub(crate) async fn set_in_effect_versioned<'e, E>(
        &self,
        exec: E,
        ws: &WorkspaceId,
        project: Option<&str>,
        field: &str,
        cards: bool,
    ) -> Result<(ColumnSetId, Vec<i64>)>
    where
        E: Executor<'e, Database = Any>,
    {
        let extra = format!("{}{}", versions_sql(), cards_sql(cards));
        let row = set_row(exec, ws, project, &extra).await?;
        versioned_effect_of(&row, project, field, cards)
    }

    /// [`Board::set_in_effect_versioned`] fused with the check of `bearer`
    /// (one statement): 401 for a token that is not valid, then 403 when its
    /// account is not a member of `ws` (or its role is below `min`), then the
    /// set in effect as [`Board::set_in_effect`] finds it.
    pub(crate) async fn set_in_effect_checked(
        &self,
        bearer: &Bearer,
        ws: &WorkspaceId,
        project: Option<&str>,
        field: &str,
        min: Role,
        cards: bool,
    ) -> Result<(ColumnSetId, Vec<i64>)> {
        let extra = format!(", {TOKEN_COLUMNS}{}{}", versions_sql(), cards_sql(cards));
        let sql = format!(
            "{} {}",
            set_row_select(&extra),
            token_from("$3", "", "$1", "")
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(ws)
            .bind(project_key(project))
            .bind(bearer.id())
            .fetch_optional(&self.pool)
            .await?;
        let role = bearer.verified_role(row.as_ref())?;
        self.note_use(bearer.id());
        check_role_of(role, min)?;
        let row = row.ok_or(Error::Unauthenticated)?;
        versioned_effect_of(&row, project, field, cards)
    }
}

/// The versions that tag the board of the set in effect (`$1` the workspace,
/// `$2` the project): the set's, the settings' and the sum of the set's
/// columns' versions (`column_versions`). Each only grows while the set's
/// version stays (a column, and its version's row, is deleted only under the
/// set's lock, which advances the set's version), so the three never return
/// to a value a client saw before a change. The set in effect is read from
/// [`set_row_select`]'s `effect`, which these columns follow.
fn versions_sql() -> &'static str {
    ", (SELECT version FROM column_sets v WHERE v.id = (SELECT id FROM effect)) AS set_version, \
     (SELECT version FROM settings WHERE workspace_id = $1) AS settings_version, \
     (SELECT CAST(COALESCE(SUM(cv.version), 0) AS BIGINT) FROM column_versions cv \
      JOIN columns c2 ON c2.id = cv.column_id WHERE c2.set_id = (SELECT id FROM effect)) \
     AS columns_version"
}

/// What the board's tag adds to its columns' versions (api.md §24: its
/// cards carry their labels, assignees, checklist and counts, which writes
/// that hold no lock of the set change): the workspace's version (label
/// writes, `Lock::Workspace`), the sum of the set's cards' versions (every
/// write under a card's lock advances it: a label or an assignee of the
/// card, its checklist, a comment's edit or deletion, an attachment) and the
/// number of their comments (kept, `counts.rs`: never a scan of them),
/// which a plain new comment raises without that lock. While the set's version stays, its cards stay (every write that
/// takes a card off it holds the set's lock); then the sum only grows, and
/// the number only grows while the sum stays.
const CARDS_VERSIONS: &str = ", (SELECT version FROM workspaces w WHERE w.id = $1) AS ws_version, \
     (SELECT CAST(COALESCE(SUM(k.version), 0) AS BIGINT) FROM cards k \
      WHERE k.column_id IN (SELECT c4.id FROM columns c4 WHERE c4.set_id = (SELECT id FROM effect))) \
     AS cards_version, \
     (SELECT CAST(COALESCE(SUM(n.comments), 0) AS BIGINT) FROM card_counts n \
      WHERE n.card_id IN (SELECT k.id FROM cards k WHERE k.column_id IN \
      (SELECT c4.id FROM columns c4 WHERE c4.set_id = (SELECT id FROM effect)))) \
     AS comments_count";

/// [`CARDS_VERSIONS`] when `cards`.
fn cards_sql(cards: bool) -> &'static str {
    if cards {
        CARDS_VERSIONS
    } else {
        ""
    }
}

/// The set in effect and its versions, from a row that selected
/// [`versions_sql`] (and [`CARDS_VERSIONS`] when `cards`).
fn versioned_effect_of(
    row: &AnyRow,
    project: Option<&str>,
    field: &str,
    cards: bool,
) -> Result<(ColumnSetId, Vec<i64>)> {
    let set = effect_of(row, project, field)?;
    let mut names = vec!["set_version", "settings_version", "columns_version"];
    if cards {
        names.extend(["ws_version", "cards_version", "comments_count"]);
    }
    let versions = names
        .into_iter()
        .map(|name| Ok(row.try_get::<Option<i64>, _>(name)?.unwrap_or_default()))
        .collect::<Result<Vec<i64>>>()?;
    Ok((set, versions))
}

/// The row of the set in effect (and `extra` columns).
async fn set_row<'e, E>(
    exec: E,
    ws: &WorkspaceId,
    project: Option<&str>,
    extra: &str,
) -> Result<AnyRow>
where
    E: Executor<'e, Database = Any>,
{
    Ok(sqlx::query(sqlx::AssertSqlSafe(set_row_select(extra)))
        .bind(ws)
        .bind(project_key(project))
        .fetch_one(exec)
        .await?)
}

/// The project parameter (`$2`) of a set row: a malformed project id is no
/// project of the workspace (and is never sent to the database: it may hold
/// NUL, which PostgreSQL refuses).
fn project_key(project: Option<&str>) -> &str {
    match project {
        Some(p) if crate::ids::is_cuid(p) => p,
        _ => "",
    }
}

/// The `SELECT` of a set row (`$1` the workspace, `$2` the project), without
/// a `FROM`, and `extra` columns. The set in effect is the common table
/// `effect`, evaluated (and planned) once however many columns read it.
fn set_row_select(extra: &str) -> String {
    format!(
        "WITH effect AS (SELECT {} AS id) \
         SELECT (SELECT id FROM effect) AS effect_set, \
         (SELECT id FROM column_sets WHERE workspace_id = $1 AND project_id = $2) AS project_set{extra}",
        effect_set_sql("$1", "$2")
    )
}

/// The set in effect from its row: 403 without a workspace, 422 on `field` for a
/// project outside it.
fn effect_of(row: &AnyRow, project: Option<&str>, field: &str) -> Result<ColumnSetId> {
    let effect: Option<ColumnSetId> = row.try_get("effect_set")?;
    let project_set: Option<ColumnSetId> = row.try_get("project_set")?;
    match (effect, project, project_set) {
        (None, _, _) => Err(Error::not_reached()),
        (Some(_), Some(_), None) => Err(ValidationErrors::one(
            field,
            "not a project of this workspace",
        )),
        (Some(set), _, _) => Ok(set),
    }
}

/// The `columnScope` rule as one SQL expression, so that every statement that
/// needs it states it the same way: the set in effect for a card of project
/// `project` (an SQL expression; `''` or NULL for none) in workspace `ws` is the
/// project's own set when `columnScope` is `PROJECT` and that set has a column,
/// otherwise the tenant set. NULL when the workspace does not exist.
pub(crate) fn effect_set_sql(ws: &str, project: &str) -> String {
    format!(
        "(SELECT CASE WHEN st.column_scope = 'PROJECT' \
                   AND EXISTS (SELECT 1 FROM columns x WHERE x.set_id = ps.id) \
              THEN ps.id ELSE ts.id END \
          FROM column_sets ts JOIN settings st ON st.workspace_id = ts.workspace_id \
          LEFT JOIN column_sets ps ON ps.workspace_id = ts.workspace_id AND ps.project_id = {project} \
          WHERE ts.workspace_id = {ws} AND ts.project_id IS NULL)"
    )
}

/// The set of project `p` of workspace `ws`; 422 when `p` is not a project of `ws`.
pub(crate) async fn project_set<'e, E>(
    exec: E,
    ws: &WorkspaceId,
    p: &ProjectId,
) -> Result<ColumnSetId>
where
    E: Executor<'e, Database = Any>,
{
    let id: Option<ColumnSetId> = sqlx::query_scalar(
        "SELECT id FROM column_sets WHERE workspace_id = $1 AND project_id = $2",
    )
    .bind(ws)
    .bind(p)
    .fetch_optional(exec)
    .await?;
    id.ok_or_else(|| ValidationErrors::one("projectId", "not a project of this workspace"))
}

/// The id of a workspace's tenant set.
pub(crate) async fn tenant_set<'e, E>(exec: E, workspace: &WorkspaceId) -> Result<ColumnSetId>
where
    E: Executor<'e, Database = Any>,
{
    let id: Option<ColumnSetId> = sqlx::query_scalar(
        "SELECT id FROM column_sets WHERE workspace_id = $1 AND project_id IS NULL",
    )
    .bind(workspace)
    .fetch_optional(exec)
    .await?;
    id.ok_or(Error::NotFound("workspace"))
}
