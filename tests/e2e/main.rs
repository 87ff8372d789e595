//! The end-to-end tests of the HTTP contract, one module per resource, in one
//! test binary (one link instead of one per file): servers run in-process
//! (`testkit`), each test on a fresh database, SQLite and PostgreSQL.
//!
//! `cargo test --test e2e`; one module: `cargo test --test e2e cards::`.

mod activity;
mod archive;
mod attachments;
mod auth;
mod authors;
mod browser;
mod cards;
mod cards_full;
mod chromium;
mod clean_text;
mod columns;
mod comments;
mod counts;
mod edge;
mod etag;
mod events;
mod flow;
mod fused;
mod history;
mod hostile;
mod invitations;
mod mail;
mod members;
mod notifications;
mod objects;
mod openapi;
mod order;
mod people;
mod preview;
mod relations;
mod schema;
mod search;
mod settings;
mod sso;
mod team;
mod trello;
mod ui;
mod unavailable;
mod upload_caps;
mod uploads;
mod webhooks;
mod wip;
