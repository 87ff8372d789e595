//! [`S3Store`]: attachment bytes in an S3-compatible object store
//! (`--files-url s3://BUCKET[/PREFIX]`, api.md §14), built on the AWS SDK.
//!
//! The temporary of a file is an S3 multipart upload to the file's own key,
//! open until its row commits, with a marker object `PREFIX/.tmp-NAME` beside
//! it ([`marker`]): [`FileStore::publish`] completes the upload,
//! [`FileStore::discard`] aborts it, and both remove the marker. So an object
//! exists only after its row committed, and a refused upload never becomes
//! one. What a crash leaves (a marker, an upload never completed) is in the
//! object listing and in `ListMultipartUploads`, both of which the sweep reads.
//! Parts are [`upload::PART_SIZE`] (the protocol's minimum), sent one at a time
//! while the next is read, so an upload holds at most one part in memory.
//!
//! The sweep's `list` reads the object listing (objects are published files; markers are
//! temporaries, timed by the marker's last write) and `ListMultipartUploads` (an upload
//! without a marker, from a crash between the two requests that start one). So a crash
//! mid-upload (marker and open upload, no row) is aborted after the grace; a crash between
//! the commit and the completion (a marker naming the parts, a row) is completed by any
//! server from the marker; an object without a row is removed at once. Downloads stream the
//! `GetObject` body through the same reader as a local file. Several servers share the bucket
//! and the database: nothing about an upload lives only in one process but its list of
//! parts, which the marker repeats.
//!
//! Configuration is the AWS SDK's (`aws-config`): `AWS_ENDPOINT_URL`, `AWS_REGION`,
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, or a profile, web identity or instance role.
//! With an endpoint set, requests are path-style (S3-compatible servers); checksums are sent
//! and checked only where S3 requires them (`WhenRequired`), since not every compatible server
//! takes the SDK's newer default. A bucket that does not answer a `HeadBucket` within 30 s
//! stops the server and the CLI, naming the bucket, endpoint and region tried and the
//! variables to set. Why this SDK and not `object_store`: `docs/decisions.md`.

mod client;
mod marker;
mod upload;

pub use client::S3Store;

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use aws_sdk_s3::config::{RequestChecksumCalculation, ResponseChecksumValidation};
use aws_sdk_s3::error::ProvideErrorMetadata;
use aws_sdk_s3::types::{CompletedMultipartUpload, CompletedPart};
use aws_sdk_s3::Client;

use crate::error::{Error, Result};
use crate::files::{BoxFuture, FileReader, FileStore, FileWriter, StoreEntry};
use crate::ids::is_cuid;
use client::{sdk_error, Inner, Open};
use marker::MARKER;

/// An error and its causes, each once, on one line.
fn causes(e: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(e);
    while let Some(err) = next {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = err.source();
    }
    parts.join(": ")
}

/// `s3://BUCKET[/PREFIX]` → bucket and key prefix (`""` or `"PREFIX/"`).
fn parse_url(url: &str) -> Option<(String, String)> {
    let rest = url.strip_prefix("s3://")?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let prefix = prefix.trim_matches('/');
    if bucket.is_empty() || bucket.contains(['?', '#']) {
        return None;
    }
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
    Some((bucket.to_string(), prefix))
}

const SETTINGS: &str = "set AWS_ENDPOINT_URL (an S3-compatible server; leave it unset for AWS), \
     AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and make sure the bucket exists";

impl S3Store {
    /// Connects to the bucket of `url` (`s3://BUCKET[/PREFIX]`) with the endpoint,
    /// region and credentials of the standard AWS settings (`AWS_ENDPOINT_URL`,
    /// `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, or a profile),
    /// and checks that the bucket answers: [`Error::Config`] says what was
    /// tried and what to set when it does not.
    pub async fn connect(url: &str) -> Result<S3Store> {
        let (bucket, prefix) = parse_url(url).ok_or_else(|| {
            Error::Config(format!(
                "--files-url {url:?} is not s3://BUCKET or s3://BUCKET/PREFIX"
            ))
        })?;
        let http = aws_smithy_http_client::Builder::new()
            .tls_provider(aws_smithy_http_client::tls::Provider::Rustls(
                aws_smithy_http_client::tls::rustls_provider::CryptoMode::Ring,
            ))
            .build_https();
        let timeouts = aws_config::timeout::TimeoutConfig::builder()
            .connect_timeout(Duration::from_secs(5))
            .build();
        let shared = aws_config::defaults(aws_config::BehaviorVersion::latest())
            .http_client(http)
            .timeout_config(timeouts)
            .load()
            .await;
        let endpoint = shared.endpoint_url().map(str::to_string);
        let region = shared.region().map(|r| r.to_string());
        let config = aws_sdk_s3::config::Builder::from(&shared)
            // S3-compatible servers (MinIO, Ceph, moto, …) answer on their own
            // host name, not on a virtual host per bucket.
            .force_path_style(endpoint.is_some())
            // Checksums only where S3 requires them: not every S3-compatible
            // server takes the newer streaming checksums.
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired)
            .build();
        let client = Client::from_conf(config);
        let tried = format!(
            "bucket {bucket:?} at {} (region {})",
            endpoint.as_deref().unwrap_or("the AWS endpoint"),
            region.as_deref().unwrap_or("not set")
        );
        let check = client.head_bucket().bucket(&bucket).send();
        match tokio::time::timeout(Duration::from_secs(30), check).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                let why = match e.raw_response().map(|r| r.status().as_u16()) {
                    Some(404) => "the bucket does not exist".to_string(),
                    Some(403) => "access denied (check the credentials)".to_string(),
                    Some(status) => format!("HTTP {status} {}", e.code().unwrap_or_default()),
                    None => causes(&e),
                };
                return Err(Error::Config(format!(
                    "--files-url {url}: cannot reach the {tried}: {why}; {SETTINGS}"
                )));
            }
            Err(_) => {
                return Err(Error::Config(format!(
                    "--files-url {url}: the {tried} did not answer within 30 s; {SETTINGS}"
                )))
            }
        }
        Ok(S3Store {
            inner: Arc::new(Inner {
                client,
                bucket,
                prefix,
                parts_in_memory: Arc::new(tokio::sync::Semaphore::new(upload::PARTS_IN_MEMORY)),
                open: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// The object key of a generated name; anything else is refused.
    fn key(&self, name: &str) -> io::Result<String> {
        if !is_cuid(name) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a stored name",
            ));
        }
        Ok(format!("{}{name}", self.inner.prefix))
    }

    /// The stored name of a listed key, and whether it is a marker (`None`:
    /// not one of ours).
    fn name_of<'k>(&self, key: &'k str) -> Option<(&'k str, bool)> {
        let rest = key.strip_prefix(self.inner.prefix.as_str())?;
        let (name, marker) = match rest.strip_prefix(MARKER) {
            Some(name) => (name, true),
            None => (rest, false),
        };
        is_cuid(name).then_some((name, marker))
    }

    /// The open multipart uploads under the prefix: (key, upload id, initiated).
    async fn open_uploads(&self, prefix: &str) -> io::Result<Vec<(String, String, SystemTime)>> {
        let mut out = Vec::new();
        let (mut key_marker, mut id_marker) = (None::<String>, None::<String>);
        loop {
            let page = self
                .inner
                .client
                .list_multipart_uploads()
                .bucket(&self.inner.bucket)
                .prefix(prefix)
                .set_key_marker(key_marker.take())
                .set_upload_id_marker(id_marker.take())
                .send()
                .await
                .map_err(sdk_error)?;
            for u in page.uploads() {
                if let (Some(key), Some(id)) = (u.key(), u.upload_id()) {
                    let at = u.initiated().and_then(|t| SystemTime::try_from(*t).ok());
                    out.push((
                        key.to_string(),
                        id.to_string(),
                        at.unwrap_or(SystemTime::now()),
                    ));
                }
            }
            if page.is_truncated() != Some(true) {
                return Ok(out);
            }
            key_marker = page.next_key_marker().map(str::to_string);
            id_marker = page.next_upload_id_marker().map(str::to_string);
            if key_marker.is_none() && id_marker.is_none() {
                return Ok(out);
            }
        }
    }

    async fn complete(
        &self,
        key: &str,
        upload_id: &str,
        parts: Vec<CompletedPart>,
    ) -> io::Result<()> {
        self.inner
            .client
            .complete_multipart_upload()
            .bucket(&self.inner.bucket)
            .key(key)
            .upload_id(upload_id)
            .multipart_upload(
                CompletedMultipartUpload::builder()
                    .set_parts(Some(parts))
                    .build(),
            )
            .send()
            .await
            .map_err(sdk_error)?;
        Ok(())
    }

    async fn abort(&self, key: &str, upload_id: &str) -> io::Result<()> {
        match self
            .inner
            .client
            .abort_multipart_upload()
            .bucket(&self.inner.bucket)
            .key(key)
            .upload_id(upload_id)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if e.code() == Some("NoSuchUpload") => Ok(()),
            Err(e) => Err(sdk_error(e)),
        }
    }

    /// Whether the object `key` exists.
    async fn exists(&self, key: &str) -> io::Result<bool> {
        match self
            .inner
            .client
            .head_object()
            .bucket(&self.inner.bucket)
            .key(key)
            .send()
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_not_found()) => Ok(false),
            Err(e) => Err(sdk_error(e)),
        }
    }

    /// The upload this process opened for `name`, taken out of the open list.
    fn take_open(&self, name: &str) -> Option<Open> {
        self.inner.open.lock().expect("open uploads").remove(name)
    }

    /// The open uploads of exactly `key` (after a crash, or from another server).
    async fn uploads_of(&self, key: &str) -> io::Result<Vec<String>> {
        Ok(self
            .open_uploads(key)
            .await?
            .into_iter()
            .filter(|(k, _, _)| k == key)
            .map(|(_, id, _)| id)
            .collect())
    }
}

fn idle_since(t: SystemTime, now: SystemTime) -> Duration {
    now.duration_since(t).unwrap_or_default()
}

impl FileStore for S3Store {
    fn create_temp<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<FileWriter>> {
        Box::pin(async move {
            let key = self.key(name)?;
            // The marker first: an open upload always has one, unless a crash
            // came between the two requests.
            self.put_marker(name, None).await?;
            let created = self
                .inner
                .client
                .create_multipart_upload()
                .bucket(&self.inner.bucket)
                .key(&key)
                .send()
                .await
                .map_err(sdk_error)?;
            let upload_id = created
                .upload_id()
                .ok_or_else(|| io::Error::other("the store gave no upload id"))?
                .to_string();
            self.inner.open.lock().expect("open uploads").insert(
                name.to_string(),
                Open {
                    upload_id: upload_id.clone(),
                    parts: None,
                },
            );
            let writer = upload::PartWriter::new(self.clone(), name.to_string(), key, upload_id);
            Ok(Box::new(writer) as FileWriter)
        })
    }

    fn publish<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move {
            let key = self.key(name)?;
            let written = match self.take_open(name) {
                Some(Open {
                    upload_id,
                    parts: Some(parts),
                }) => Some((upload_id, parts)),
                // Not written by this process (a crash between the commit and
                // the completion): the marker lists the parts.
                _ => self
                    .read_marker(name)
                    .await?
                    .map(|m| (m.upload_id, m.parts)),
            };
            let Some((upload_id, parts)) = written else {
                return Err(io::Error::other(format!(
                    "{name}: no written upload to complete"
                )));
            };
            match self.complete(&key, &upload_id, parts).await {
                Ok(()) => {}
                // Completed before, its marker left behind: done already.
                Err(_) if self.exists(&key).await? => {}
                Err(e) => return Err(e),
            }
            self.delete_marker(name).await
        })
    }

    fn discard<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move {
            let key = self.key(name)?;
            let ids: Vec<String> = match self.take_open(name) {
                Some(open) => vec![open.upload_id],
                None => self.uploads_of(&key).await?,
            };
            for upload_id in ids {
                self.abort(&key, &upload_id).await?;
            }
            self.delete_marker(name).await
        })
    }

    fn remove<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move {
            let key = self.key(name)?;
            // S3 answers a missing key like a removed one.
            self.inner
                .client
                .delete_object()
                .bucket(&self.inner.bucket)
                .key(key)
                .send()
                .await
                .map_err(sdk_error)?;
            Ok(())
        })
    }

    fn open<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<Option<(FileReader, u64)>>> {
        Box::pin(async move {
            let key = self.key(name)?;
            let got = self
                .inner
                .client
                .get_object()
                .bucket(&self.inner.bucket)
                .key(key)
                .send()
                .await;
            match got {
                Ok(out) => {
                    let len = out.content_length().unwrap_or_default().max(0) as u64;
                    let reader = Box::new(Box::pin(out.body.into_async_read()));
                    Ok(Some((reader as FileReader, len)))
                }
                Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => Ok(None),
                Err(e) => Err(sdk_error(e)),
            }
        })
    }

    fn list(&self) -> BoxFuture<'_, io::Result<Vec<StoreEntry>>> {
        Box::pin(async move {
            let now = SystemTime::now();
            let mut out = Vec::new();
            let mut pages = self
                .inner
                .client
                .list_objects_v2()
                .bucket(&self.inner.bucket)
                .prefix(&self.inner.prefix)
                .into_paginator()
                .send();
            while let Some(page) = pages.next().await {
                for object in page.map_err(sdk_error)?.contents() {
                    let Some((name, temporary)) = object.key().and_then(|k| self.name_of(k)) else {
                        continue;
                    };
                    let at = object
                        .last_modified()
                        .and_then(|t| SystemTime::try_from(*t).ok());
                    out.push(StoreEntry {
                        name: name.to_string(),
                        temporary,
                        idle: idle_since(at.unwrap_or(now), now),
                    });
                }
            }
            // An open upload without a marker (a crash between the two
            // requests that start one, or a marker removed before a failed
            // abort): its start is the time it was last written.
            for (key, _, started) in self.open_uploads(&self.inner.prefix).await? {
                if let Some((name, false)) = self.name_of(&key) {
                    if !out.iter().any(|e| e.temporary && e.name == name) {
                        out.push(StoreEntry {
                            name: name.to_string(),
                            temporary: true,
                            idle: idle_since(started, now),
                        });
                    }
                }
            }
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::parse_url;

    #[test]
    fn bucket_and_prefix() {
        assert_eq!(parse_url("s3://b"), Some(("b".into(), "".into())));
        assert_eq!(parse_url("s3://b/"), Some(("b".into(), "".into())));
        assert_eq!(parse_url("s3://b/p/q/"), Some(("b".into(), "p/q/".into())));
        assert_eq!(parse_url("s3:///p"), None);
        assert_eq!(parse_url("https://b"), None);
    }
}
