//! Opening a [`Board`]: the pool and its prepared statements, the file
//! store, the event feed and the per-process values of the modules that keep
//! one ([`Board::local`]), then the search index and the name keys. It names
//! the modules it assembles, so it sits in the outer layer, above them all.

use std::sync::Arc;

use crate::board::{Board, Locals, Options, Parts};
use crate::error::{Error, Result};
use crate::files::LocalDir;
#[cfg(feature = "s3")]
use crate::s3::S3Store;
use crate::{
    cards, columns, comments, events, history, mail, notifications, passwords, search, store,
    tokens,
};

/// Opening a board: the operations of `open.rs`.
impl Board {
    /// Opens `database_url` (migrating it) with default options.
    pub async fn open(database_url: &str) -> Result<Board> {
        Board::open_with(Options::new(database_url)).await
    }

    /// Opens a board: connects, creates a missing SQLite file, runs migrations,
    /// and creates the files folder (or checks that the bucket of `files_url` answers).
    pub async fn open_with(mut options: Options) -> Result<Board> {
        let backend = store::Backend::from_url(&options.database_url)?;
        let prepared = Arc::new(backend.prepared(hot_statements(backend)));
        let (pool, backend) = store::connect(
            &options.database_url,
            options.max_connections,
            options.acquire_timeout,
            options.create_missing,
            &prepared,
        )
        .await?;
        let mail = match (&options.smtp_url, &options.mail_from) {
            (None, _) => mail::Mail::off(),
            (Some(url), Some(from)) => mail::Mail::on(mail::Mailer::new(url, from)?),
            (Some(_), None) => {
                return Err(Error::Config(
                    "--smtp-url needs --mail-from (BOARD_MAIL_FROM): the address the board's \
                     e-mail comes from"
                        .into(),
                ))
            }
        };
        let store = match (options.file_store.take(), &options.files_url) {
            (Some(store), _) => store,
            #[cfg(feature = "s3")]
            (None, Some(url)) => Arc::new(S3Store::connect(url).await?),
            #[cfg(not(feature = "s3"))]
            (None, Some(url)) => {
                return Err(Error::Config(format!(
                    "--files-url {url:?}: this build of board-core lacks the `s3` feature \
                     (files in an object store); build it with `--features s3`, or keep \
                     the files in a folder"
                )))
            }
            (None, None) => Arc::new(LocalDir::new(&options.files_dir).map_err(|e| {
                Error::Config(format!(
                    "cannot create {}: {e}",
                    options.files_dir.display()
                ))
            })?),
        };
        let pool = store::Conns::new(pool, options.acquire_timeout);
        let feed = events::Feed::new(&pool, backend);
        let writers = store::WriteQueue::new(&pool, backend, prepared);
        let on_commit = Arc::new(feed.clone());
        let mut locals = Locals::default();
        locals.put(feed);
        locals.put(columns::Listings::default());
        locals.put(passwords::Hashers::default());
        locals.put(tokens::Touched::default());
        locals.put(mail);
        let parts = Parts {
            options,
            pool,
            backend,
            store,
            writers,
            on_commit,
        };
        let board = Board::from_parts(parts, locals);
        board.ensure_search_index().await?;
        board.fill_name_keys().await?;
        Ok(board)
    }
}

/// The statements of the hot writes that a batch sends with literals on
/// PostgreSQL (a card write's re-read, a move to a column's end, a new card's
/// column, a history entry,
/// a new comment, the words of up to 16 distinct terms, a document's words
/// removed), which every connection prepares so that they run by name
/// ([`store::Backend::prepared`] adds the locks and the event).
fn hot_statements(backend: store::Backend) -> Vec<String> {
    let mut texts = vec![
        cards::card_read_sql(false),
        cards::card_read_sql(true),
        cards::card_move_read_sql(backend),
        cards::MOVE_TO_END_SQL.to_string(),
        cards::move_at_commit_sql(),
        store::COLUMN_VERSION_SQL.to_string(),
        cards::column_read_sql(false),
        cards::column_read_sql(true),
        history::ENTRY_SQL.to_string(),
        comments::insert_sql(backend),
        search::index::FORGET_SQL.to_string(),
    ];
    texts.extend(notifications::make::hot_statements(backend));
    texts.extend((1..=16).map(search::index::insert_sql));
    texts
}

#[cfg(not(feature = "s3"))]
#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn files_url_without_the_s3_feature_is_a_config_error() {
        let dir = std::env::temp_dir().join(format!("board-no-s3-{}", std::process::id()));
        let mut options = Options::new(format!("sqlite://{}/board.db", dir.display()));
        options.files_dir = dir.join("files");
        options.files_url = Some("s3://bucket/prefix".into());
        let result = Board::open_with(options).await;
        std::fs::remove_dir_all(&dir).ok();
        match result {
            Err(Error::Config(message)) => assert!(
                message.contains("\"s3://bucket/prefix\"") && message.contains("`s3` feature"),
                "{message}"
            ),
            other => panic!("expected Error::Config, got {other:?}"),
        }
    }
}
