//! Per-workspace settings (api.md §4, and `wipLimits` of §20) and the
//! `columnScope` resolution of the set in effect.
//!
//! An update reads the current settings and merges the patch under the settings row's lock
//! (`Lock::Settings`), so two admins changing different settings lose neither. The writes that
//! read a setting (`columnManagement`, `columnScope`, `allowCrossProjectLinks`, `wipLimits`) read
//! it without that lock: a settings update reads nothing those writes change, so each such
//! pair is equivalent to running one after the other.

use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::{Any, Executor, Row};

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::change::Change;
use crate::error::{Error, Result};
use crate::ids::WorkspaceId;
use crate::store::{flag, Lock};
use crate::validate::{self, Fields, FromJson, Input};
use crate::wip::WipLimits;

/// Which column set holds for the cards of a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum ColumnScope {
    /// Every card uses the workspace's tenant set.
    Tenant,
    /// A project's cards use the project's own set when it has a column.
    Project,
}

impl ColumnScope {
    /// The stored and wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            ColumnScope::Tenant => "TENANT",
            ColumnScope::Project => "PROJECT",
        }
    }

    /// Parses `TENANT` / `PROJECT` in any letter case.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_uppercase().as_str() {
            "TENANT" => Some(ColumnScope::Tenant),
            "PROJECT" => Some(ColumnScope::Project),
            _ => None,
        }
    }
}

/// The settings of one workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The workspace (`tenantId` on the wire).
    #[serde(rename = "tenantId")]
    pub workspace_id: WorkspaceId,
    /// Which set holds for project cards (default `TENANT`).
    pub column_scope: ColumnScope,
    /// Whether columns may be created, edited, reordered and deleted (default on).
    pub column_management: bool,
    /// Whether cards of different projects may be linked (default off).
    pub allow_cross_project_links: bool,
    /// What the columns' WIP limits do: `SOFT` (default) marks, `HARD` refuses.
    pub wip_limits: WipLimits,
}

/// A change of settings; absent fields stay as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(rename_all = "camelCase")
)]
pub struct SettingsPatch {
    /// The workspace (`tenantId`).
    #[cfg_attr(feature = "openapi", schema(rename = "tenantId"))]
    pub workspace_id: WorkspaceId,
    /// New `columnScope`.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub column_scope: Option<ColumnScope>,
    /// New `columnManagement`.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub column_management: Option<bool>,
    /// New `allowCrossProjectLinks`.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub allow_cross_project_links: Option<bool>,
    /// New `wipLimits`.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub wip_limits: Option<WipLimits>,
}

impl SettingsPatch {
    /// A patch of the settings of `workspace` that changes nothing yet.
    ///
    /// ```
    /// # let ws = board_core::WorkspaceId::parse("ckv7q2x0a0000abcdefghijk").unwrap();
    /// use board_core::{ColumnScope, SettingsPatch};
    /// let patch = SettingsPatch::new(ws).column_scope(ColumnScope::Project);
    /// assert_eq!(patch.column_management, None);
    /// ```
    pub fn new(workspace: WorkspaceId) -> SettingsPatch {
        SettingsPatch {
            workspace_id: workspace,
            column_scope: None,
            column_management: None,
            allow_cross_project_links: None,
            wip_limits: None,
        }
    }

    /// Sets `columnScope`.
    pub fn column_scope(mut self, scope: ColumnScope) -> SettingsPatch {
        self.column_scope = Some(scope);
        self
    }

    /// Sets `columnManagement`.
    pub fn column_management(mut self, on: bool) -> SettingsPatch {
        self.column_management = Some(on);
        self
    }

    /// Sets `allowCrossProjectLinks`.
    pub fn allow_cross_project_links(mut self, on: bool) -> SettingsPatch {
        self.allow_cross_project_links = Some(on);
        self
    }

    /// Sets `wipLimits`.
    pub fn wip_limits(mut self, mode: WipLimits) -> SettingsPatch {
        self.wip_limits = Some(mode);
        self
    }
}

impl FromJson for SettingsPatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let tenant = f.required("tenantId", validate::id(WorkspaceId::parse));
        let scope = f.optional("columnScope", |v| {
            validate::one_of(v, &["TENANT", "PROJECT"])
                .map(|s| ColumnScope::parse(s).expect("listed"))
        });
        let management = f.optional("columnManagement", validate::boolean);
        let cross = f.optional("allowCrossProjectLinks", validate::boolean);
        let wip = f.optional("wipLimits", |v| {
            validate::one_of(v, WipLimits::ALL).map(|s| WipLimits::parse(s).expect("listed"))
        });
        f.finish()?;
        Ok(SettingsPatch {
            workspace_id: tenant.expect("checked by finish"),
            column_scope: scope,
            column_management: management,
            allow_cross_project_links: cross,
            wip_limits: wip,
        })
    }
}

/// Workspace settings (api.md §4): the operations of `settings.rs`.
impl Board {
    /// The settings of `workspace` (Viewer).
    pub async fn settings(&self, actor: &Actor, workspace: &WorkspaceId) -> Result<Settings> {
        self.require(&self.pool, actor, workspace, Role::Viewer)
            .await?;
        load(&self.pool, workspace).await
    }

    /// Changes settings (Admin); absent fields keep their value. The body is
    /// checked before access, as its workspace comes from the body. The
    /// settings row is locked before it is read, so two admins changing
    /// different settings at once both keep their change.
    pub async fn update_settings(
        &self,
        actor: &Actor,
        input: impl Into<Input<SettingsPatch>>,
    ) -> Result<Settings> {
        let patch = input.into().open()?;
        let ws = &patch.workspace_id;
        self.require(&self.pool, actor, ws, Role::Admin).await?;
        let mut tx = self.write(Lock::Settings(ws)).await?;
        let current = load(&mut *tx, ws).await?;
        let next = Settings {
            workspace_id: patch.workspace_id.clone(),
            column_scope: patch.column_scope.unwrap_or(current.column_scope),
            column_management: patch.column_management.unwrap_or(current.column_management),
            allow_cross_project_links: patch
                .allow_cross_project_links
                .unwrap_or(current.allow_cross_project_links),
            wip_limits: patch.wip_limits.unwrap_or(current.wip_limits),
        };
        sqlx::query(
            "UPDATE settings SET column_scope = $2, column_management = $3, \
             allow_cross_project_links = $4, wip_limits = $5 WHERE workspace_id = $1",
        )
        .bind(ws)
        .bind(next.column_scope)
        .bind(i64::from(next.column_management))
        .bind(i64::from(next.allow_cross_project_links))
        .bind(next.wip_limits)
        .execute(&mut *tx)
        .await?;
        tx.emit(Change::new("settings.updated", ws, actor, &next, &[]));
        tx.commit().await?;
        Ok(next)
    }
}

/// Reads a workspace's settings; an unknown workspace is 403 (never 404).
pub(crate) async fn load<'e, E>(exec: E, workspace: &WorkspaceId) -> Result<Settings>
where
    E: Executor<'e, Database = Any>,
{
    let row: Option<AnyRow> = sqlx::query(
        "SELECT column_scope, column_management, allow_cross_project_links, wip_limits \
         FROM settings WHERE workspace_id = $1",
    )
    .bind(workspace)
    .fetch_optional(exec)
    .await?;
    let row = row.ok_or_else(Error::not_reached)?;
    let scope: String = row.try_get("column_scope")?;
    let wip: String = row.try_get("wip_limits")?;
    Ok(Settings {
        workspace_id: workspace.clone(),
        column_scope: ColumnScope::parse(&scope).unwrap_or(ColumnScope::Tenant),
        column_management: flag(row.try_get("column_management")?),
        allow_cross_project_links: flag(row.try_get("allow_cross_project_links")?),
        wip_limits: WipLimits::parse(&wip).unwrap_or_default(),
    })
}

crate::ids::bind_as_text!(ColumnScope);
