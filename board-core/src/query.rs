//! The typed form of the `tenant` and `project` query parameters of the reads
//! `GET /api/columns`, `GET /api/board` and `GET /api/settings`, and their
//! parsing from the query string, which keeps the contract's outcomes:
//!
//! - a missing `tenant` is a 422 `Required` on `tenant` (where it is required);
//! - a malformed `tenant` names no workspace: 403, the same as a workspace the
//!   actor does not reach;
//! - a malformed `project` is no project of the workspace: the 422 on `project`,
//!   reported after the access check, like any project outside the workspace.

use crate::error::{Error, Result, ValidationErrors};
use crate::ids::{ProjectId, WorkspaceId};

impl WorkspaceId {
    /// The workspace of a query parameter `tenant` (`None` when it is absent):
    /// absent is a 422 `Required` on `tenant`, malformed the 403 of a
    /// workspace not reached.
    pub fn from_query(tenant: Option<&str>) -> Result<WorkspaceId> {
        let tenant = tenant.ok_or_else(|| ValidationErrors::one("tenant", "Required"))?;
        WorkspaceId::parse(tenant).ok_or_else(Error::not_reached)
    }
}

/// The project part of a [`SetQuery`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum ProjectPart {
    /// The set of the workspace's cards without a project.
    None,
    /// The set in effect for the project's cards.
    Project(ProjectId),
    /// A query parameter that is not an id: no project of the workspace.
    Malformed,
}

/// Which column set a read is about: a workspace (`tenant`) and, optionally,
/// a project whose cards' set in effect is wanted (`project`).
///
/// ```
/// use board_core::SetQuery;
/// # let (ws, project) = (board_core::WorkspaceId::parse("ckv7q2x0a0000abcdefghijk").unwrap(), None);
/// let query = SetQuery::workspace(ws).project(project);
/// assert!(query.project_id().is_none());
/// // From a query string: a missing tenant is a 422, a malformed one a 403.
/// assert_eq!(SetQuery::from_query(None, None).unwrap_err().code(), "VALIDATION_FAILED");
/// assert_eq!(SetQuery::from_query(Some("x"), None).unwrap_err().code(), "FORBIDDEN");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetQuery {
    workspace: WorkspaceId,
    project: ProjectPart,
}

impl SetQuery {
    /// The workspace's set (its tenant set; or, where a read lists columns,
    /// every set of the workspace).
    pub fn workspace(workspace: WorkspaceId) -> SetQuery {
        SetQuery {
            workspace,
            project: ProjectPart::None,
        }
    }

    /// Narrows the query to the set in effect for the cards of `project`
    /// (`None` leaves it as it is).
    pub fn project(mut self, project: Option<ProjectId>) -> SetQuery {
        if let Some(p) = project {
            self.project = ProjectPart::Project(p);
        }
        self
    }

    /// Reads the query parameters `tenant` and `project` (each `None` when
    /// absent). `tenant` is required ([`WorkspaceId::from_query`]); a malformed
    /// `project` is kept, to be refused as no project of the workspace after
    /// the access check.
    pub fn from_query(tenant: Option<&str>, project: Option<&str>) -> Result<SetQuery> {
        let workspace = WorkspaceId::from_query(tenant)?;
        let project = match project {
            None => ProjectPart::None,
            Some(p) => ProjectId::parse(p).map_or(ProjectPart::Malformed, ProjectPart::Project),
        };
        Ok(SetQuery { workspace, project })
    }

    /// Like [`SetQuery::from_query`], where `tenant` is optional: without it
    /// there is no query (`Ok(None)`) and `project` is ignored.
    pub fn from_optional_query(
        tenant: Option<&str>,
        project: Option<&str>,
    ) -> Result<Option<SetQuery>> {
        tenant
            .map(|t| SetQuery::from_query(Some(t), project))
            .transpose()
    }

    /// The workspace.
    pub fn workspace_id(&self) -> &WorkspaceId {
        &self.workspace
    }

    /// The project, if one was given well-formed.
    pub fn project_id(&self) -> Option<&ProjectId> {
        match &self.project {
            ProjectPart::Project(p) => Some(p),
            ProjectPart::None | ProjectPart::Malformed => None,
        }
    }

    /// The project as the set resolution takes it: `Some("")` (no project of
    /// any workspace) for a malformed one.
    pub(crate) fn project_key(&self) -> Option<&str> {
        match &self.project {
            ProjectPart::None => None,
            ProjectPart::Project(p) => Some(p.as_str()),
            ProjectPart::Malformed => Some(""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_outcomes() {
        let ws = "ckv7q2x0a0000abcdefghijk";
        let Err(Error::Validation(e)) = SetQuery::from_query(None, Some(ws)) else {
            panic!("a missing tenant is a 422")
        };
        assert_eq!(e.field_errors["tenant"], vec!["Required"]);
        assert!(matches!(
            SetQuery::from_query(Some("nope"), None),
            Err(Error::Forbidden(_))
        ));
        let q = SetQuery::from_query(Some(ws), Some("nope")).unwrap();
        assert_eq!(q.project_key(), Some(""));
        assert!(q.project_id().is_none());
        assert_eq!(q.workspace_id().as_str(), ws);
        assert_eq!(
            SetQuery::from_optional_query(None, Some("x")).unwrap(),
            None
        );
    }
}
