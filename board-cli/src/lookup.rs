//! Names a person types, resolved through board-core's lookups.

use board_core::{Actor, Board, CardId, Column, Name, ProjectId, WorkspaceId};

/// The workspace and project a command names, by id or name.
pub async fn place(
    board: &Board,
    workspace: &str,
    project: Option<&str>,
) -> anyhow::Result<(WorkspaceId, Option<ProjectId>)> {
    let ws = board.admin().find_workspace(workspace).await?;
    let project = match project {
        Some(p) => Some(board.admin().find_project(&ws.id, p).await?.id),
        None => None,
    };
    Ok((ws.id, project))
}

/// A column by id, or by name in the set in effect of `--workspace` (and
/// `--project`) when they are given.
pub async fn column(
    board: &Board,
    workspace: Option<&str>,
    project: Option<&str>,
    column: &str,
) -> anyhow::Result<Column> {
    let (ws, project) = match workspace {
        Some(w) => {
            let (ws, p) = place(board, w, project).await?;
            (Some(ws), p)
        }
        None if project.is_some() => anyhow::bail!("--project needs --workspace"),
        None => (None, None),
    };
    Ok(board
        .find_column_in(&Actor::Operator, ws.as_ref(), project.as_ref(), column)
        .await?)
}

/// A card id as typed: a malformed one is a card that does not exist.
pub fn card_id(s: &str) -> anyhow::Result<CardId> {
    Ok(CardId::parse(s).ok_or(board_core::Error::NotFound("card"))?)
}

/// A name as typed, refused (422 on `name`) as board-core's rule says.
pub fn name(raw: &str) -> board_core::Result<Name> {
    Name::parse(raw).map_err(|e| e.on("name"))
}
