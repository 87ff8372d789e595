//! Upload helpers shared by tests/comments.rs and tests/attachments.rs: tiny
//! files recognised by their magic bytes, multipart requests, and the state of
//! the files folder.
#![allow(dead_code)]

use serde_json::Value;
use testkit::{App, Res};

pub fn png() -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0".to_vec();
    v.extend_from_slice(&[0x1f, 0x15, 0xc4, 0x89]);
    v
}
pub fn gif() -> Vec<u8> {
    b"GIF89a\x01\0\x01\0\x80\0\0\0\0\0\xff\xff\xff!\xf9\x04\x01\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02D\x01\0;".to_vec()
}
pub fn jpeg() -> Vec<u8> {
    b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0\xff\xd9".to_vec()
}
pub fn pdf() -> Vec<u8> {
    b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n".to_vec()
}
pub fn svg() -> Vec<u8> {
    b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".to_vec()
}
pub fn html() -> Vec<u8> {
    b"\n  <!doctype html><html><body><script>alert(1)</script></body></html>".to_vec()
}
pub fn script() -> Vec<u8> {
    b"#!/bin/sh\nrm -rf /\n".to_vec()
}
pub fn elf() -> Vec<u8> {
    let mut v = b"\x7fELF\x02\x01\x01\0".to_vec();
    v.resize(64, 0);
    v
}

/// POSTs a multipart form of `(field, file name, bytes)` parts with `token`.
pub async fn upload(app: &App, token: &str, path: &str, parts: &[(&str, &str, Vec<u8>)]) -> Res {
    app.upload(token, path, parts).await
}

pub use testkit::files_in;

/// Rows in the attachments table.
pub async fn attachment_rows(app: &App) -> i64 {
    let pool = pool(app).await;
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM attachments")
        .fetch_one(&pool)
        .await
        .expect("count");
    pool.close().await;
    n
}

/// A direct connection to the test database (for checks and crash set-ups).
pub async fn pool(app: &App) -> sqlx::AnyPool {
    sqlx::any::install_default_drivers();
    sqlx::any::AnyPoolOptions::new()
        .max_connections(1)
        .connect(&app.db.url)
        .await
        .expect("connect")
}

pub fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// Rows in `table` (a table name written in the test, never user input).
pub async fn rows_in(app: &App, table: &str) -> i64 {
    let pool = pool(app).await;
    let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")))
        .fetch_one(&pool)
        .await
        .expect("count");
    pool.close().await;
    n
}
