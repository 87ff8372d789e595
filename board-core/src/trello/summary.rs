//! The answer of an import from Trello (api.md §28): what it brought, what it
//! matched, and what it could not place.

use serde::Serialize;

/// What an import from Trello did (or, dry, would do).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    /// The Trello board.
    pub board: ImportedBoard,
    /// Lists matched to columns, and columns created.
    pub columns: Counted,
    /// Cards created, of them archived, and cards left alone.
    pub cards: ImportedCards,
    /// Labels matched by name, and labels created.
    pub labels: Counted,
    /// Checklist items created.
    pub checklist_items: u64,
    /// Comments created.
    pub comments: u64,
    /// History entries written for the file's moves (not the creations).
    pub history_entries: u64,
    /// Attachments written as links in descriptions.
    pub attachment_links: u64,
    /// Trello members mapped to no account.
    pub unmapped_members: Vec<UnmappedMember>,
    /// What was left out, and why.
    pub warnings: Vec<String>,
}

/// The Trello board's name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ImportedBoard {
    /// Its name in Trello.
    pub name: String,
}

/// Things matched to what the board held, and things created.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Counted {
    /// Matched.
    pub matched: u64,
    /// Created.
    pub created: u64,
}

/// The cards of an import.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ImportedCards {
    /// Every new card.
    pub created: u64,
    /// The new cards imported archived.
    pub archived: u64,
    /// Cards an earlier import brought, left as they are.
    pub skipped: u64,
}

/// A Trello member mapped to no account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UnmappedMember {
    /// Its Trello id.
    pub id: String,
    /// Its Trello username.
    pub username: String,
    /// Its full name.
    pub full_name: String,
}
