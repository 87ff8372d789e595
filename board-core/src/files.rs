//! Where attachment bytes live, behind [`FileStore`], and the local-folder
//! implementation [`LocalDir`] (the default, `--files-dir`).
//!
//! A file exists exactly when its row does. Writers follow one order:
//! write under a temporary name ([`FileStore::create_temp`]), commit the row,
//! then [`FileStore::publish`]; deleters commit first, then
//! [`FileStore::remove`]. What a crash leaves between those steps is swept by
//! [`crate::Admin::sweep`]. Operations only ever pass names the server generated
//! (cuid2 ids), never a path or a name from a client.

use std::fmt;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::{Duration, SystemTime};

use tokio::io::{AsyncRead, AsyncWrite};

use crate::ids::is_cuid;

/// A boxed future, so that [`FileStore`] can be used as a trait object.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A writer of a file's bytes under its temporary name.
pub type FileWriter = Box<dyn AsyncWrite + Send + Unpin>;

/// A reader of a stored file's bytes.
pub type FileReader = Box<dyn AsyncRead + Send + Sync + Unpin>;

/// One entry of [`FileStore::list`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreEntry {
    /// The stored name (for a temporary: the name it will be published under).
    pub name: String,
    /// True for a temporary (written, not yet published).
    pub temporary: bool,
    /// Time since the entry was last written.
    pub idle: Duration,
}

/// Storage of attachment bytes by stored name. The operations of board-core use
/// only this trait, so an object store can be added without touching them.
pub trait FileStore: Send + Sync + fmt::Debug {
    /// Starts a new file under the temporary form of `name`.
    fn create_temp<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<FileWriter>>;
    /// Makes the temporary `name` visible under `name` (after its row committed).
    fn publish<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<()>>;
    /// Removes the temporary `name`; one that is gone already is fine.
    fn discard<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<()>>;
    /// Removes the published `name`; one that is gone already is fine.
    fn remove<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<()>>;
    /// Opens the published `name` with its length; `None` when it does not exist.
    fn open<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<Option<(FileReader, u64)>>>;
    /// Every published and temporary file the store holds.
    fn list(&self) -> BoxFuture<'_, io::Result<Vec<StoreEntry>>>;
}

/// Files in one local folder: `NAME` when published, `.tmp-NAME` while written.
#[derive(Debug, Clone)]
pub struct LocalDir {
    dir: PathBuf,
}

/// The name prefix of a temporary (`.tmp-NAME`).
pub(crate) const TEMP_PREFIX: &str = ".tmp-";

impl LocalDir {
    /// A store in `dir` (created when missing).
    pub fn new(dir: impl Into<PathBuf>) -> io::Result<LocalDir> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)?;
        Ok(LocalDir { dir })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of a generated name; anything else is refused, so no name from
    /// a client can reach the file system.
    fn path(&self, name: &str, temporary: bool) -> io::Result<PathBuf> {
        if !is_cuid(name) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a stored name",
            ));
        }
        Ok(if temporary {
            self.dir.join(format!("{TEMP_PREFIX}{name}"))
        } else {
            self.dir.join(name)
        })
    }
}

fn gone_is_fine(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

impl FileStore for LocalDir {
    fn create_temp<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<FileWriter>> {
        Box::pin(async move {
            let file = tokio::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(self.path(name, true)?)
                .await?;
            Ok(Box::new(file) as FileWriter)
        })
    }

    fn publish<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(
            async move { tokio::fs::rename(self.path(name, true)?, self.path(name, false)?).await },
        )
    }

    fn discard<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move { gone_is_fine(tokio::fs::remove_file(self.path(name, true)?).await) })
    }

    fn remove<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move { gone_is_fine(tokio::fs::remove_file(self.path(name, false)?).await) })
    }

    fn open<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<Option<(FileReader, u64)>>> {
        Box::pin(async move {
            match tokio::fs::File::open(self.path(name, false)?).await {
                Ok(file) => {
                    let len = file.metadata().await?.len();
                    Ok(Some((Box::new(file) as FileReader, len)))
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            }
        })
    }

    fn list(&self) -> BoxFuture<'_, io::Result<Vec<StoreEntry>>> {
        Box::pin(async move {
            let mut out = Vec::new();
            let mut dir = tokio::fs::read_dir(&self.dir).await?;
            let now = SystemTime::now();
            while let Some(entry) = dir.next_entry().await? {
                let Ok(file_name) = entry.file_name().into_string() else {
                    continue;
                };
                let (name, temporary) = match file_name.strip_prefix(TEMP_PREFIX) {
                    Some(rest) => (rest.to_string(), true),
                    None => (file_name, false),
                };
                if !is_cuid(&name) {
                    continue; // not ours: left alone
                }
                let meta = entry.metadata().await?;
                if !meta.is_file() {
                    continue;
                }
                let idle = meta
                    .modified()
                    .ok()
                    .and_then(|m| now.duration_since(m).ok())
                    .unwrap_or_default();
                out.push(StoreEntry {
                    name,
                    temporary,
                    idle,
                });
            }
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn temp_publish_open_remove() {
        let dir = std::env::temp_dir().join(format!("board-files-{}", cuid2::create_id()));
        let store = LocalDir::new(&dir).unwrap();
        let name = cuid2::create_id();
        let mut w = store.create_temp(&name).await.unwrap();
        w.write_all(b"hello").await.unwrap();
        w.shutdown().await.unwrap();
        drop(w);
        assert!(
            store.open(&name).await.unwrap().is_none(),
            "not yet published"
        );
        let listed = store.list().await.unwrap();
        assert_eq!(listed.len(), 1);
        assert!(listed[0].temporary && listed[0].name == name);
        store.publish(&name).await.unwrap();
        let (mut r, len) = store.open(&name).await.unwrap().unwrap();
        let mut s = String::new();
        r.read_to_string(&mut s).await.unwrap();
        assert_eq!((s.as_str(), len), ("hello", 5));
        store.remove(&name).await.unwrap();
        store.remove(&name).await.unwrap();
        assert!(store.list().await.unwrap().is_empty());
        assert!(
            store.open("../etc/passwd").await.is_err(),
            "only generated names"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
