//! The setup board-core's unit tests share: a board whose folder goes when
//! the test is done with it (even when it fails), and a workspace and a card
//! on it.

use std::path::PathBuf;

use crate::board::{Board, Options};
use crate::{Actor, Card, Name, NewCard, Workspace, WorkspaceId};

/// A board with its files (and, on SQLite, its database `b.db`) in a fresh
/// folder `board-NAME-ID` under the temporary folder, removed on drop. It
/// derefs to its [`Board`].
pub(crate) struct TempBoard {
    /// The board.
    pub(crate) board: Board,
    /// Its folder.
    pub(crate) dir: PathBuf,
}

impl TempBoard {
    /// A board on a SQLite file in its own folder.
    pub(crate) async fn sqlite(name: &str) -> TempBoard {
        let dir = fresh_dir(name);
        let url = format!("sqlite://{}/b.db", dir.display());
        TempBoard::open(url, dir).await
    }

    /// A board on a fresh database of the PostgreSQL server of
    /// `BOARD_TEST_POSTGRES_URL`, its files in a folder of its own; `None`
    /// when the variable is not set.
    pub(crate) async fn postgres(name: &str) -> Option<TempBoard> {
        use sqlx::{Connection, Executor};
        let url = std::env::var("BOARD_TEST_POSTGRES_URL").ok();
        let url = url.filter(|url| !url.is_empty())?;
        sqlx::any::install_default_drivers();
        let db = format!("board_tx_{}", cuid2::create_id());
        let mut admin = sqlx::AnyConnection::connect(&url).await.unwrap();
        admin
            .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}")))
            .await
            .unwrap();
        admin.close().await.ok();
        let base = url.rsplit_once('/').expect("a database in the URL").0;
        Some(TempBoard::open(format!("{base}/{db}"), fresh_dir(name)).await)
    }

    async fn open(database_url: String, dir: PathBuf) -> TempBoard {
        let mut options = Options::new(database_url);
        options.files_dir = dir.join("files");
        let board = Board::open_with(options).await.unwrap();
        TempBoard { board, dir }
    }
}

impl std::ops::Deref for TempBoard {
    type Target = Board;

    fn deref(&self) -> &Board {
        &self.board
    }
}

impl Drop for TempBoard {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

/// Expands each test body into `NAME::sqlite` and `NAME::postgres`, each on
/// a [`TempBoard`] of its own; the PostgreSQL variant is `#[ignore]`d when
/// `BOARD_TEST_POSTGRES_URL` was not set at build time, so a skipped backend
/// shows as ignored, never as passed.
macro_rules! on_both_backends {
    ($($(#[doc = $doc:literal])* async fn $name:ident($board:ident) $body:block)*) => {$(
        $(#[doc = $doc])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn body($board: $crate::testing::TempBoard) $body

            #[tokio::test]
            async fn sqlite() {
                body($crate::testing::TempBoard::sqlite(stringify!($name)).await).await
            }

            #[tokio::test]
            #[cfg_attr(not(board_test_postgres), ignore = "BOARD_TEST_POSTGRES_URL is not set")]
            async fn postgres() {
                let board = $crate::testing::TempBoard::postgres(stringify!($name)).await;
                body(board.expect("BOARD_TEST_POSTGRES_URL, set at build time, is not set now")).await
            }
        }
    )*};
}
pub(crate) use on_both_backends;

/// A folder name under the temporary folder that no other test uses.
fn fresh_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("board-{name}-{}", cuid2::create_id()))
}

/// A new workspace "Team", created by the operator.
pub(crate) async fn workspace(board: &Board) -> Workspace {
    board
        .admin()
        .create_workspace(&Name::parse("Team").unwrap())
        .await
        .unwrap()
}

/// A new card titled `title` in `ws`, created by the operator.
pub(crate) async fn card(board: &Board, ws: &WorkspaceId, title: &str) -> Card {
    let new = NewCard::new(ws.clone(), Name::parse(title).unwrap());
    board.create_card(&Actor::Operator, new).await.unwrap()
}
