//! Stored files of attachments. A file exists exactly when its row does: rows are
//! deleted first, in the operation's transaction, and the files after commit.

use std::path::Path;

/// Removes stored files after their rows were committed away. A file that is
/// already gone is fine; any other failure is logged and left to the sweep.
pub(crate) async fn remove_stored(dir: &Path, stored_names: &[String]) {
    for name in stored_names {
        match tokio::fs::remove_file(dir.join(name)).await {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(file = %name, error = %e, "could not remove a stored file"),
        }
    }
}
