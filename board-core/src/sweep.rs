//! The sweep (`board gc`, and the server at start-up and hourly): loose uploads
//! never bound within 24 h, published files without a row, and temporaries a
//! crash left behind.
//!
//! A file exists exactly when its row does, so the sweep rolls each leftover forward or back.
//! A published file without a row (a lost removal) is removed at once: a file is published
//! only after its row committed, so one without a row is never an upload in flight. A
//! temporary whose row committed (a crash before `publish`) is published. Any other
//! temporary is removed once it has not been written for [`TEMP_GRACE`](crate::board::TEMP_GRACE) (1 h;
//! `Options::temp_grace`, the server's hidden `--sweep-grace`): an upload in flight writes
//! continuously. On an object store the temporary is an open multipart upload with its marker
//! (`s3/mod.rs`), and the same rules hold.

use std::collections::HashSet;
use std::time::Duration;

use serde::Serialize;

use crate::board::{Admin, Board};
use crate::error::Result;
use crate::time::now_plus;

/// How long a loose comment upload waits to be bound.
pub const LOOSE_UPLOAD_TTL: Duration = Duration::from_secs(24 * 3600);

/// What a sweep did, by stored name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepReport {
    /// Loose uploads older than 24 h: rows and files removed.
    pub loose_uploads: Vec<String>,
    /// Published files without a row: removed.
    pub orphan_files: Vec<String>,
    /// Old temporaries without a row: removed.
    pub temp_files: Vec<String>,
    /// Old temporaries whose row had committed (a crash before the rename):
    /// published, so file and row agree again.
    pub recovered: Vec<String>,
}

impl Board {
    /// Deletes loose comment uploads older than [`LOOSE_UPLOAD_TTL`], rows first.
    async fn sweep_loose(&self) -> Result<Vec<String>> {
        let cutoff = now_plus(-(LOOSE_UPLOAD_TTL.as_secs() as i64));
        let mut tx = self.write_unlocked().await?;
        // RETURNING: exactly the rows this statement removed, even if a comment
        // bound one of them meanwhile.
        let names: Vec<String> = sqlx::query_scalar(
            "DELETE FROM attachments \
             WHERE scope = 'COMMENT' AND comment_id IS NULL AND created_at < $1 \
             RETURNING stored_name",
        )
        .bind(&cutoff)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        self.remove_files(&names).await;
        Ok(names)
    }

    /// Which of `names` have an attachment row.
    async fn names_with_rows(&self, names: &[&str]) -> Result<HashSet<String>> {
        let mut found = HashSet::new();
        for batch in names.chunks(500) {
            let sql = format!(
                "SELECT stored_name FROM attachments WHERE stored_name IN ({})",
                crate::store::placeholders(1, batch.len())
            );
            let mut q = sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(sql));
            for n in batch {
                q = q.bind(*n);
            }
            found.extend(q.fetch_all(&self.pool).await?);
        }
        Ok(found)
    }
}

/// The sweep (the operator's side): the operations of `sweep.rs`.
impl Admin<'_> {
    /// Runs the sweep once (the operator's job; no access check).
    pub async fn sweep(&self) -> Result<SweepReport> {
        let mut report = SweepReport {
            loose_uploads: self.board.sweep_loose().await?,
            ..SweepReport::default()
        };
        let entries = self.board.store.list().await?;
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        let with_rows = self.board.names_with_rows(&names).await?;
        for e in entries {
            let has_row = with_rows.contains(&e.name);
            match (e.temporary, has_row) {
                (false, true) => {}
                (false, false) => {
                    self.board.store.remove(&e.name).await?;
                    report.orphan_files.push(e.name);
                }
                (true, _) if e.idle < self.board.temp_grace => {}
                (true, true) => {
                    self.board.store.publish(&e.name).await?;
                    report.recovered.push(e.name);
                }
                (true, false) => {
                    self.board.store.discard(&e.name).await?;
                    report.temp_files.push(e.name);
                }
            }
        }
        Ok(report)
    }
}
