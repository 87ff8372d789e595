//! The writer of an S3 temporary: bytes gathered into parts of [`PART_SIZE`],
//! each sent with `UploadPart` before more is taken, so an upload holds at most
//! one part in memory, and a server at most [`PARTS_IN_MEMORY`] (a file that
//! outgrows its first small buffer waits for one of those places; meanwhile
//! its request body is not read). Shutting it down sends the last part, writes the list
//! of parts into the marker and hands it to the store, which completes the
//! upload on publish.
//!
//! A file starts in a [`FIRST_BUFFER`] buffer; two places per server, not one per upload,
//! bound the memory of many concurrent large uploads (BENCHMARKS.md). After each part but
//! the last the writer rewrites the (still empty) marker, so the marker's time is the
//! upload's last write, as a temporary file's is, and the sweep's grace counts from it.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::CompletedPart;
use tokio::io::AsyncWrite;

use super::client::{sdk_error, S3Store};
use super::marker::Marker;
use crate::files::BoxFuture;

/// The size of every part but the last: S3's minimum, the least memory.
pub(crate) const PART_SIZE: usize = 5 * 1024 * 1024;

/// What a small file starts with; a file that outgrows it gets a whole part.
const FIRST_BUFFER: usize = 256 * 1024;

/// How many whole parts one server holds in memory at once, over all uploads.
pub(crate) const PARTS_IN_MEMORY: usize = 2;

type Permit = tokio::sync::OwnedSemaphorePermit;

pub(super) struct PartWriter {
    store: S3Store,
    name: String,
    key: String,
    upload_id: String,
    buf: Vec<u8>,
    parts: Vec<CompletedPart>,
    sending: Option<BoxFuture<'static, io::Result<CompletedPart>>>,
    /// The place of the part being gathered among [`PARTS_IN_MEMORY`], and
    /// the wait for one.
    permit: Option<Permit>,
    waiting: Option<BoxFuture<'static, Option<Permit>>>,
    /// The marker being written with the list of parts, at shutdown.
    closing: Option<BoxFuture<'static, io::Result<()>>>,
    finished: bool,
}

impl PartWriter {
    pub(super) fn new(store: S3Store, name: String, key: String, upload_id: String) -> Self {
        PartWriter {
            store,
            name,
            key,
            upload_id,
            buf: Vec::new(),
            parts: Vec::new(),
            sending: None,
            permit: None,
            waiting: None,
            closing: None,
            finished: false,
        }
    }

    /// Starts sending what the buffer holds as the next part; a part before
    /// the last also touches the marker, so the sweep sees the upload written
    /// to (the shutdown rewrites it after the last).
    fn send_part(&mut self, last: bool) {
        let number = self.parts.len() as i32 + 1;
        let body = ByteStream::from(std::mem::take(&mut self.buf));
        // The place is given back once the part is sent and its bytes dropped.
        let permit = self.permit.take();
        let request = self
            .store
            .inner
            .client
            .upload_part()
            .bucket(&self.store.inner.bucket)
            .key(&self.key)
            .upload_id(&self.upload_id)
            .part_number(number)
            .body(body);
        let (store, name) = (self.store.clone(), self.name.clone());
        self.sending = Some(Box::pin(async move {
            let sent = request.send().await.map_err(sdk_error)?;
            drop(permit);
            if !last {
                store.put_marker(&name, None).await?;
            }
            Ok(CompletedPart::builder()
                .part_number(number)
                .set_e_tag(sent.e_tag().map(str::to_string))
                .build())
        }));
    }

    /// Waits for the part being sent, if any.
    fn poll_sent(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(sending) = self.sending.as_mut() {
            let part = ready!(sending.as_mut().poll(cx));
            self.sending = None;
            self.parts.push(part?);
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for PartWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        loop {
            ready!(this.poll_sent(cx))?;
            if this.buf.len() < PART_SIZE {
                break;
            }
            this.send_part(false);
        }
        let room = PART_SIZE - this.buf.len();
        let n = data.len().min(room);
        if this.buf.len() + n > FIRST_BUFFER && this.permit.is_none() {
            let places = this.store.inner.parts_in_memory.clone();
            let waiting = this
                .waiting
                .get_or_insert_with(|| Box::pin(async move { places.acquire_owned().await.ok() }));
            let permit = ready!(waiting.as_mut().poll(cx));
            this.waiting = None;
            this.permit = Some(permit.ok_or_else(|| io::Error::other("the store is closed"))?);
        }
        if this.buf.capacity() - this.buf.len() < n {
            // One small buffer, then straight to a whole part: no doubling
            // past the part size, no copy of a nearly full part.
            let want = if this.buf.len() + n <= FIRST_BUFFER {
                FIRST_BUFFER
            } else {
                PART_SIZE
            };
            this.buf.reserve_exact(want - this.buf.len());
        }
        this.buf.extend_from_slice(&data[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_sent(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_sent(cx))?;
        if !this.buf.is_empty() {
            this.send_part(true);
            ready!(this.poll_sent(cx))?;
        }
        if this.finished {
            return Poll::Ready(Ok(()));
        }
        if this.parts.is_empty() {
            // Nothing written: an empty file, refused before any publish.
            this.finished = true;
            return Poll::Ready(Ok(()));
        }
        if this.closing.is_none() {
            let (store, name) = (this.store.clone(), this.name.clone());
            let marker = Marker {
                upload_id: this.upload_id.clone(),
                parts: this.parts.clone(),
            };
            this.closing = Some(Box::pin(async move {
                store.put_marker(&name, Some(&marker)).await
            }));
        }
        if let Some(closing) = this.closing.as_mut() {
            ready!(closing.as_mut().poll(cx))?;
        }
        this.closing = None;
        this.finished = true;
        let mut open = this.store.inner.open.lock().expect("open uploads");
        if let Some(entry) = open.get_mut(&this.name) {
            entry.parts = Some(std::mem::take(&mut this.parts));
        }
        Poll::Ready(Ok(()))
    }
}
