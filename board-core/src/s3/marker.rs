//! The marker of an open upload: a small object `PREFIX/.tmp-NAME` beside the
//! multipart upload to `PREFIX/NAME`, written before the upload starts. An
//! object listing shows it, with the time it was last written; once every
//! part is sent it is written again naming the upload and its parts, so an
//! upload whose row committed can be completed by any server after a crash. (`ListParts` and the start time that
//! `ListMultipartUploads` reports are not relied on: not every S3-compatible
//! server answers them faithfully.)

use std::io;

use aws_sdk_s3::error::ProvideErrorMetadata;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::CompletedPart;

use super::client::{sdk_error, S3Store};

/// The prefix of a marker's name: a temporary's, as in a local folder.
pub(super) const MARKER: &str = crate::files::TEMP_PREFIX;

/// What the marker of a file written in full says.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Marker {
    pub upload_id: String,
    pub parts: Vec<CompletedPart>,
}

impl Marker {
    /// `upload ID`, then `part N ETAG` per part.
    fn to_text(&self) -> String {
        let mut text = format!("upload {}\n", self.upload_id);
        for p in &self.parts {
            let (n, tag) = (
                p.part_number().unwrap_or_default(),
                p.e_tag().unwrap_or_default(),
            );
            text.push_str(&format!("part {n} {tag}\n"));
        }
        text
    }

    /// `None` for the marker of an upload still being written (empty).
    fn parse(text: &str) -> Option<Marker> {
        let mut marker = Marker::default();
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("upload", id)) => marker.upload_id = id.to_string(),
                Some(("part", rest)) => {
                    let (n, tag) = rest.split_once(' ')?;
                    marker.parts.push(
                        CompletedPart::builder()
                            .part_number(n.parse().ok()?)
                            .e_tag(tag)
                            .build(),
                    );
                }
                _ => return None,
            }
        }
        (!marker.upload_id.is_empty() && !marker.parts.is_empty()).then_some(marker)
    }
}

impl S3Store {
    fn marker_key(&self, name: &str) -> String {
        format!("{}{MARKER}{name}", self.inner.prefix)
    }

    /// Writes the marker of `name`: empty while the upload is written, then
    /// the upload and its parts.
    pub(super) async fn put_marker(&self, name: &str, written: Option<&Marker>) -> io::Result<()> {
        let text = written.map(Marker::to_text).unwrap_or_default();
        self.inner
            .client
            .put_object()
            .bucket(&self.inner.bucket)
            .key(self.marker_key(name))
            .body(ByteStream::from(text.into_bytes()))
            .send()
            .await
            .map_err(sdk_error)?;
        Ok(())
    }

    /// The marker of `name`, if there is one (an unreadable one counts as none).
    pub(super) async fn read_marker(&self, name: &str) -> io::Result<Option<Marker>> {
        let got = self
            .inner
            .client
            .get_object()
            .bucket(&self.inner.bucket)
            .key(self.marker_key(name))
            .send()
            .await;
        let out = match got {
            Ok(out) => out,
            Err(e) if e.code() == Some("NoSuchKey") => return Ok(None),
            Err(e) => return Err(sdk_error(e)),
        };
        let bytes = out.body.collect().await.map_err(io::Error::other)?;
        Ok(std::str::from_utf8(&bytes.into_bytes())
            .ok()
            .and_then(Marker::parse))
    }

    /// Removes the marker of `name` (a missing one is fine).
    pub(super) async fn delete_marker(&self, name: &str) -> io::Result<()> {
        self.inner
            .client
            .delete_object()
            .bucket(&self.inner.bucket)
            .key(self.marker_key(name))
            .send()
            .await
            .map_err(sdk_error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_text_round_trips() {
        let part = |n: i32, tag: &str| CompletedPart::builder().part_number(n).e_tag(tag).build();
        let written = Marker {
            upload_id: "u-2".into(),
            parts: vec![part(1, "\"a b\""), part(2, "\"c\"")],
        };
        assert_eq!(Marker::parse(&written.to_text()), Some(written));
        assert_eq!(Marker::parse("nonsense"), None);
        assert_eq!(Marker::parse(""), None);
    }
}
