//! The export format (docs/export.md): `manifest.json`, one `TABLE.jsonl` per
//! table (one JSON object per row, the column names as keys), and `files/`
//! with the stored files. An import checks the manifest and every checksum
//! before it writes anything, then loads in one transaction.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Map;
use sha2::{Digest, Sha256};
use sqlx::AnyConnection;
use tokio::io::AsyncReadExt;

use super::catalog::{ColumnKind, TableColumn};
use super::{
    commit_with_files, continue_counters, end_snapshot, insert_rows, prepare_target,
    rows_per_statement, select_sql, PendingFiles, Row, Schema, Tally, TransferOptions,
    TransferProgress, TransferReport, Value, FILES_COLUMN, FILES_TABLE, TABLES,
};
use crate::access::to_hex;
use crate::board::{Admin, Board};
use crate::error::{Error, Result};
use crate::ids::is_cuid;

use super::previous::{Absent, EXPORT_FORMAT_VERSION};

/// The `format` value of every manifest.
const FORMAT: &str = "board-export";
const MANIFEST: &str = "manifest.json";
const FILES_DIR: &str = "files";

/// `manifest.json`: what an export holds, with a checksum of each file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Manifest {
    format: String,
    format_version: u32,
    /// The latest migration of the exported database.
    migration_version: i64,
    /// Every migration applied to it.
    migrations: Vec<i64>,
    exported_at: String,
    tables: Vec<TableEntry>,
    files: Vec<FileEntry>,
}

/// One table of the manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TableEntry {
    name: String,
    file: String,
    columns: Vec<String>,
    rows: u64,
    sha256: String,
}

/// One stored file of the manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FileEntry {
    name: String,
    bytes: u64,
    sha256: String,
}

fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::Transfer(format!("the export is corrupt or incomplete: {what}"))
}

/// A row as a JSON object, the column names as keys.
fn to_json(row: &Row, cols: &[TableColumn]) -> serde_json::Value {
    let mut map = Map::with_capacity(cols.len());
    for (v, c) in row.iter().zip(cols) {
        let v = match v {
            Value::Null => serde_json::Value::Null,
            Value::Int(i) => (*i).into(),
            Value::Text(s) => s.clone().into(),
        };
        map.insert(c.name.clone(), v);
    }
    serde_json::Value::Object(map)
}

/// A JSON object as a row of `cols`: exactly those keys, each of its kind.
/// A row of `table` from its JSON line; a column `absent` says an export of
/// its version lacks is null.
fn from_json(line: &[u8], cols: &[TableColumn], table: &str, absent: Absent) -> Result<Row> {
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| corrupt(format!("{table}: {e}")))?;
    let serde_json::Value::Object(mut obj) = value else {
        return Err(corrupt(format!("{table}: a line is not a JSON object")));
    };
    let row = cols
        .iter()
        .map(|c| match (obj.remove(&c.name), c.kind) {
            (Some(serde_json::Value::Null), _) => Ok(Value::Null),
            (Some(serde_json::Value::Number(n)), ColumnKind::Integer) => n
                .as_i64()
                .map(Value::Int)
                .ok_or_else(|| corrupt(format!("{table}.{}: not an integer", c.name))),
            (Some(serde_json::Value::String(s)), ColumnKind::Text) => Ok(Value::Text(s)),
            (Some(_), _) => Err(corrupt(format!(
                "{table}.{}: a value of another type",
                c.name
            ))),
            (None, _) if absent.column(table, &c.name) => Ok(Absent::fill(&c.name)),
            (None, _) => Err(corrupt(format!("{table}: a row without {}", c.name))),
        })
        .collect::<Result<Row>>()?;
    if let Some(key) = obj.keys().next() {
        return Err(corrupt(format!("{table}: unknown column {key}")));
    }
    Ok(row)
}

/// A writer that hashes what it writes.
struct Hashing<W> {
    inner: W,
    hash: Sha256,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Reads the lines of a table file, hashing every byte: `(sha256, lines)`
/// through `each`.
fn each_line(path: &Path, mut each: impl FnMut(&[u8]) -> Result<()>) -> Result<String> {
    let file = File::open(path).map_err(|e| corrupt(format!("{}: {e}", path.display())))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut hash = Sha256::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        hash.update(&line);
        if line.last() != Some(&b'\n') {
            return Err(corrupt(format!("{}: the last line is cut", path.display())));
        }
        each(&line[..line.len() - 1])?;
    }
    Ok(to_hex(&hash.finalize()))
}

/// The SHA-256 and length of a file.
fn file_digest(path: &Path) -> Result<(String, u64)> {
    let mut file = File::open(path).map_err(|e| corrupt(format!("{}: {e}", path.display())))?;
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut len = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hash.update(&buf[..n]);
        len += n as u64;
    }
    Ok((to_hex(&hash.finalize()), len))
}

/// Reads `manifest.json` and checks everything it lists, before any write:
/// the format, the tables (every one of [`TABLES`], in order), each table
/// file's rows and checksum, each stored file's name, length and checksum.
fn verify(dir: &Path) -> Result<Manifest> {
    let text = std::fs::read(dir.join(MANIFEST))
        .map_err(|e| corrupt(format!("{}: {e}", dir.join(MANIFEST).display())))?;
    let manifest: Manifest =
        serde_json::from_slice(&text).map_err(|e| corrupt(format!("{MANIFEST}: {e}")))?;
    let Some(absent) = Absent::of(manifest.format_version).filter(|_| manifest.format == FORMAT)
    else {
        return Err(Error::Transfer(format!(
            "{MANIFEST} is format {} version {}; this build reads {FORMAT} versions 1 \
             to {EXPORT_FORMAT_VERSION}",
            manifest.format, manifest.format_version
        )));
    };
    let names: Vec<&str> = manifest.tables.iter().map(|t| t.name.as_str()).collect();
    let expected: Vec<&str> = TABLES
        .iter()
        .copied()
        .filter(|t| !absent.table(t))
        .collect();
    if names != expected {
        return Err(corrupt(format!(
            "{MANIFEST} lists the tables {names:?}, expected {expected:?}"
        )));
    }
    for t in &manifest.tables {
        if t.file != format!("{}.jsonl", t.name) {
            return Err(corrupt(format!(
                "{MANIFEST}: table {} in file {}",
                t.name, t.file
            )));
        }
        let mut rows = 0u64;
        let sha = each_line(&dir.join(&t.file), |_| {
            rows += 1;
            Ok(())
        })?;
        if sha != t.sha256 || rows != t.rows {
            return Err(corrupt(format!(
                "{} holds {rows} rows with checksum {sha}; the manifest says {} rows, {}",
                t.file, t.rows, t.sha256
            )));
        }
    }
    for f in &manifest.files {
        if !is_cuid(&f.name) {
            return Err(corrupt(format!(
                "{MANIFEST}: {:?} is not a stored name",
                f.name
            )));
        }
        let (sha, len) = file_digest(&dir.join(FILES_DIR).join(&f.name))?;
        if sha != f.sha256 || len != f.bytes {
            return Err(corrupt(format!(
                "files/{} has {len} bytes with checksum {sha}; the manifest says {}, {}",
                f.name, f.bytes, f.sha256
            )));
        }
    }
    Ok(manifest)
}

impl Board {
    async fn export_snapshot(
        &self,
        conn: &mut AnyConnection,
        dir: &Path,
        options: &TransferOptions<'_>,
    ) -> Result<TransferReport> {
        use futures_util::TryStreamExt;
        let schema = Schema::read(conn, self.backend).await?;
        let mut tally = Tally::new(options);
        let mut tables = Vec::with_capacity(TABLES.len());
        let mut stored = Vec::new();
        for (i, table) in TABLES.iter().enumerate() {
            let cols = &schema.tables[i];
            let file_col = (*table == FILES_TABLE)
                .then(|| cols.iter().position(|c| c.name == FILES_COLUMN))
                .flatten();
            let file = format!("{table}.jsonl");
            let mut out = Hashing {
                inner: BufWriter::with_capacity(1 << 20, File::create(dir.join(&file))?),
                hash: Sha256::new(),
            };
            let mut stream =
                sqlx::query(sqlx::AssertSqlSafe(select_sql(table, cols))).fetch(&mut *conn);
            let mut pending = 0;
            while let Some(row) = stream.try_next().await? {
                let row = super::decode(&row, cols)?;
                if let Some(Value::Text(name)) = file_col.map(|c| &row[c]) {
                    stored.push(name.clone());
                }
                serde_json::to_writer(&mut out, &to_json(&row, cols))
                    .map_err(|e| Error::Internal(e.to_string()))?;
                out.write_all(b"\n")?;
                pending += 1;
                if pending == rows_per_statement(cols.len()) {
                    tally.add(i, pending);
                    pending = 0;
                }
            }
            tally.add(i, pending);
            out.inner.flush()?;
            out.inner.get_ref().sync_all()?;
            tables.push(TableEntry {
                name: table.to_string(),
                file,
                columns: cols.iter().map(|c| c.name.clone()).collect(),
                rows: tally.counts[i],
                sha256: to_hex(&out.hash.finalize()),
            });
        }
        let mut files = Vec::with_capacity(stored.len());
        for (n, name) in stored.iter().enumerate() {
            files.push(
                self.export_file(name, &dir.join(FILES_DIR).join(name))
                    .await?,
            );
            options.tell(TransferProgress::Files {
                files: n as u64 + 1,
            });
        }
        let manifest = Manifest {
            format: FORMAT.into(),
            format_version: EXPORT_FORMAT_VERSION,
            migration_version: schema.version(),
            migrations: schema.versions.clone(),
            exported_at: crate::time::now().to_string(),
            tables,
            files,
        };
        // Written last: a folder without it is an interrupted export.
        let text =
            serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Internal(e.to_string()))?;
        let temp = dir.join(".manifest.json.tmp");
        std::fs::write(&temp, text)?;
        std::fs::rename(&temp, dir.join(MANIFEST))?;
        Ok(tally.report(manifest.files.len() as u64))
    }

    /// Copies one stored file out to `path`, hashing it.
    async fn export_file(&self, name: &str, path: &PathBuf) -> Result<FileEntry> {
        let Some((mut reader, _)) = self.store.open(name).await? else {
            return Err(Error::Transfer(format!(
                "stored file {name} of an attachment is missing from the files"
            )));
        };
        let mut out = File::create(path)?;
        let mut hash = Sha256::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut bytes = 0u64;
        loop {
            let n = reader.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            hash.update(&buf[..n]);
            out.write_all(&buf[..n])?;
            bytes += n as u64;
        }
        out.sync_all()?;
        Ok(FileEntry {
            name: name.to_string(),
            bytes,
            sha256: to_hex(&hash.finalize()),
        })
    }
}

/// Export and import (the operator's side): the operations of `transfer/export.rs`.
impl Admin<'_> {
    /// Writes the whole installation into the folder `dir` (missing or empty)
    /// in the versioned export format of docs/export.md: `manifest.json`, one
    /// `TABLE.jsonl` per table, and `files/` with every stored file. Read from
    /// one snapshot, like [`Admin::copy_to`]; [`Admin::import`] loads it.
    ///
    /// ```no_run
    /// # async fn f() -> board_core::Result<()> {
    /// use board_core::{Board, TransferOptions};
    /// let board = Board::open("sqlite://board-data/board.db").await?;
    /// let report = board.admin().export("backup".as_ref(), &TransferOptions::default()).await?;
    /// let empty = Board::open("sqlite://elsewhere/board.db").await?;
    /// assert_eq!(empty.admin().import("backup".as_ref(), &TransferOptions::default()).await?, report);
    /// # Ok(()) }
    /// ```
    pub async fn export(
        &self,
        dir: &Path,
        options: &TransferOptions<'_>,
    ) -> Result<TransferReport> {
        if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
            return Err(Error::Transfer(format!(
                "{} is not empty: export into a new folder",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir.join(FILES_DIR))?;
        let mut conn = self.board.snapshot().await?;
        let result = self.board.export_snapshot(&mut conn, dir, options).await;
        end_snapshot(conn).await;
        result
    }

    /// Loads an export folder written by [`Admin::export`] into this board's
    /// database, which must be empty, and its files into this board's file
    /// store. The manifest, every row count and every checksum are checked
    /// before anything is written ([`Error::Transfer`] names what is wrong);
    /// then the rows go in one transaction, so a failure leaves the database
    /// empty.
    pub async fn import(
        &self,
        dir: &Path,
        options: &TransferOptions<'_>,
    ) -> Result<TransferReport> {
        let manifest = verify(dir)?;
        let mut tx = self.board.write_unlocked().await?;
        let schema = Schema::read(&mut tx, self.board.backend).await?;
        let absent = Absent::of(manifest.format_version).expect("verified");
        if manifest.migrations != absent.migrations(&schema.versions, &manifest.migrations) {
            return Err(Error::Transfer(format!(
                "the export is at migration version {}, this database at {}: \
                 import with the version of board that exported it",
                manifest.migration_version,
                schema.version()
            )));
        }
        let index = |name: &str| TABLES.iter().position(|t| *t == name).expect("verified");
        for entry in &manifest.tables {
            let cols = &schema.tables[index(&entry.name)];
            let mut theirs = entry.columns.clone();
            let mut ours: Vec<String> = cols
                .iter()
                .filter(|c| !absent.column(&entry.name, &c.name))
                .map(|c| c.name.clone())
                .collect();
            // A column an export may have or not counts when it has it.
            ours.extend(
                theirs
                    .iter()
                    .filter(|c| Absent::optional(&entry.name, c) && !ours.contains(c))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
            theirs.sort();
            ours.sort();
            if theirs != ours {
                return Err(Error::Transfer(format!(
                    "table {} has the columns {theirs:?} in the export, {ours:?} here",
                    entry.name
                )));
            }
        }
        prepare_target(&mut tx).await?;
        let mut tally = Tally::new(options);
        for entry in &manifest.tables {
            let i = index(&entry.name);
            let cols = &schema.tables[i];
            let size = rows_per_statement(cols.len());
            let mut batch: Vec<Row> = Vec::with_capacity(size);
            let mut batches: Vec<Vec<Row>> = Vec::new();
            // Parsed in slices of a few statements, each inserted before the next
            // slice is read, so memory stays bounded.
            let path = dir.join(&entry.file);
            let file =
                File::open(&path).map_err(|e| corrupt(format!("{}: {e}", path.display())))?;
            let mut reader = BufReader::with_capacity(1 << 20, file);
            let mut hash = Sha256::new();
            let mut line = Vec::new();
            loop {
                line.clear();
                let n = reader.read_until(b'\n', &mut line)?;
                if n > 0 {
                    hash.update(&line);
                    let body = line
                        .strip_suffix(b"\n")
                        .ok_or_else(|| corrupt(&entry.file))?;
                    batch.push(from_json(body, cols, &entry.name, absent)?);
                    if batch.len() == size {
                        batches.push(std::mem::replace(&mut batch, Vec::with_capacity(size)));
                    }
                }
                if n == 0 || batches.len() == 4 {
                    for rows in batches.drain(..) {
                        insert_rows(&mut tx, &entry.name, cols, &rows).await?;
                        tally.add(i, rows.len());
                    }
                }
                if n == 0 {
                    break;
                }
            }
            insert_rows(&mut tx, &entry.name, cols, &batch).await?;
            tally.add(i, batch.len());
            // The file changed after the check: nothing commits.
            if to_hex(&hash.finalize()) != entry.sha256 || tally.counts[i] != entry.rows {
                return Err(corrupt(format!("{} changed during the import", entry.file)));
            }
        }
        continue_counters(&mut tx).await?;
        crate::access::fill_name_keys(&mut tx).await?;
        if absent.search_index() {
            crate::search::index::rebuild(&mut tx).await?;
        }
        let mut files = PendingFiles::new(self.board);
        for (n, f) in manifest.files.iter().enumerate() {
            let written = async {
                let path = dir.join(FILES_DIR).join(&f.name);
                let mut reader = tokio::fs::File::open(&path).await?;
                files.write(&f.name, &mut reader).await
            }
            .await;
            match written {
                Ok(bytes) if bytes == f.bytes => {}
                Ok(_) => {
                    files.discard().await;
                    return Err(corrupt(format!(
                        "files/{} changed during the import",
                        f.name
                    )));
                }
                Err(e) => {
                    files.discard().await;
                    return Err(e);
                }
            }
            options.tell(TransferProgress::Files {
                files: n as u64 + 1,
            });
        }
        commit_with_files(tx, files, options).await?;
        Ok(tally.report(manifest.files.len() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> Vec<TableColumn> {
        vec![
            TableColumn {
                name: "id".into(),
                kind: ColumnKind::Text,
            },
            TableColumn {
                name: "n".into(),
                kind: ColumnKind::Integer,
            },
        ]
    }

    fn current() -> Absent {
        Absent::of(EXPORT_FORMAT_VERSION).unwrap()
    }

    #[test]
    fn rows_round_trip_through_json() {
        let row = vec![Value::Text("a\"b\n".into()), Value::Null];
        let line = serde_json::to_vec(&to_json(&row, &cols())).unwrap();
        assert_eq!(from_json(&line, &cols(), "t", current()).unwrap(), row);
        let row = vec![Value::Text("x".into()), Value::Int(i64::MAX)];
        let line = serde_json::to_vec(&to_json(&row, &cols())).unwrap();
        assert_eq!(from_json(&line, &cols(), "t", current()).unwrap(), row);
    }

    #[test]
    fn rows_of_another_shape_are_refused() {
        for bad in [
            r#"{"id": "x"}"#,
            r#"{"id": "x", "n": 1, "extra": 2}"#,
            r#"{"id": 1, "n": 1}"#,
            r#"{"id": "x", "n": "1"}"#,
            r#"{"id": "x", "n": 1.5}"#,
            r#"["x", 1]"#,
            r#"{"id": "x", "n"#,
        ] {
            let e = from_json(bad.as_bytes(), &cols(), "t", current()).unwrap_err();
            assert!(matches!(e, Error::Transfer(_)), "{bad}: {e}");
        }
    }
}
