//! The [`S3Store`] itself: the SDK client, the bucket and key prefix, and the
//! uploads this process has open, which its clones share.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

use aws_sdk_s3::error::DisplayErrorContext;
use aws_sdk_s3::types::CompletedPart;
use aws_sdk_s3::Client;

/// Files as objects `PREFIX/NAME` of one bucket; a file being written is an
/// open multipart upload to that key.
#[derive(Clone)]
pub struct S3Store {
    pub(super) inner: Arc<Inner>,
}

/// What the clones of an [`S3Store`] share.
pub(super) struct Inner {
    pub(super) client: Client,
    pub(super) bucket: String,
    /// `""` or `"PREFIX/"`.
    pub(super) prefix: String,
    /// The places for whole parts in memory ([`super::upload::PARTS_IN_MEMORY`]).
    pub(super) parts_in_memory: Arc<tokio::sync::Semaphore>,
    /// Uploads this process opened and has not completed or aborted yet:
    /// stored name → upload id and, once written, the parts.
    pub(super) open: Mutex<HashMap<String, Open>>,
}

/// An upload this process opened: its id and, once written, its parts.
pub(super) struct Open {
    pub(super) upload_id: String,
    pub(super) parts: Option<Vec<CompletedPart>>,
}

impl std::fmt::Debug for S3Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "S3Store(s3://{}/{})",
            self.inner.bucket, self.inner.prefix
        )
    }
}

/// An SDK error as an I/O error, with its whole chain of causes.
pub(super) fn sdk_error(e: impl std::error::Error) -> io::Error {
    io::Error::other(DisplayErrorContext(e).to_string())
}
