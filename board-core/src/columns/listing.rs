//! A workspace's column listing (`GET /api/columns?tenant=T`), kept in this
//! process and keyed by the workspace's `version`.
//!
//! Every write of a column takes the workspace's row first (`Lock::Workspace`,
//! which advances `workspaces.version` in the transaction of the change, as
//! the links between its cards do): so a listing read at a version is never
//! older than what that version holds, in any process. A read checks the
//! bearer token and reads the version in one statement, over three primary
//! keys; only when this process holds no listing of that version does it read
//! the columns (the statement that joins the sets, their columns and projects,
//! the most expensive part of the route on PostgreSQL). The cache is a
//! shortcut, never a source: the version comes from the database with every
//! request, so a write through another server or the CLI is seen at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::column::Column;
use crate::error::Result;
use crate::etag::ETag;
use crate::ids::WorkspaceId;

/// The most workspaces whose listing a process keeps; past it the cache
/// starts again empty (a listing is a few hundred bytes).
const MAX_WORKSPACES: usize = 10_000;

/// A workspace's columns as read at a version, with their tag.
#[derive(Debug)]
pub(crate) struct Listing {
    /// The workspace's version the listing was read at (or after).
    pub(crate) version: i64,
    /// The columns, in listing order.
    pub(crate) columns: Vec<Column>,
    /// The tag of their JSON (api.md §22).
    pub(crate) tag: ETag,
}

impl Listing {
    /// The listing of `columns`, read after the workspace was at `version`.
    pub(crate) fn new(version: i64, columns: Vec<Column>) -> Result<Listing> {
        let tag = ETag::of_payload("columns", &columns)?;
        Ok(Listing {
            version,
            columns,
            tag,
        })
    }
}

/// The listings this process has read, one per workspace.
#[derive(Debug, Default)]
pub(crate) struct Listings {
    by_workspace: Mutex<HashMap<WorkspaceId, Arc<Listing>>>,
}

impl Listings {
    /// The listing of `ws` read at `version`, if this process holds it.
    pub(crate) fn at(&self, ws: &WorkspaceId, version: i64) -> Option<Arc<Listing>> {
        let map = self.by_workspace.lock().unwrap_or_else(|p| p.into_inner());
        map.get(ws).filter(|l| l.version == version).cloned()
    }

    /// Keeps `listing` for `ws`, unless a listing of a later version is kept.
    pub(crate) fn keep(&self, ws: &WorkspaceId, listing: Arc<Listing>) {
        let mut map = self.by_workspace.lock().unwrap_or_else(|p| p.into_inner());
        if map.get(ws).is_some_and(|l| l.version > listing.version) {
            return;
        }
        if map.len() >= MAX_WORKSPACES && !map.contains_key(ws) {
            map.clear();
        }
        map.insert(ws.clone(), listing);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(version: i64) -> Arc<Listing> {
        Arc::new(Listing::new(version, Vec::new()).unwrap())
    }

    #[test]
    fn a_listing_answers_its_own_version_and_never_goes_back() {
        let listings = Listings::default();
        let ws = WorkspaceId::new();
        assert!(listings.at(&ws, 1).is_none());
        listings.keep(&ws, listing(2));
        assert!(listings.at(&ws, 2).is_some());
        assert!(listings.at(&ws, 1).is_none() && listings.at(&ws, 3).is_none());
        // A slower reader of an earlier version does not replace it.
        listings.keep(&ws, listing(1));
        assert!(listings.at(&ws, 2).is_some());
        listings.keep(&ws, listing(3));
        assert!(listings.at(&ws, 3).is_some() && listings.at(&ws, 2).is_none());
        assert!(listings.at(&WorkspaceId::new(), 3).is_none());
    }
}
