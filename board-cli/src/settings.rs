//! `board settings set --workspace W KEY VALUE`.

use board_core::{Actor, Board, ColumnScope, SettingsPatch, WipLimits};
use clap::{Subcommand, ValueEnum};

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Change one setting of a workspace.
    Set {
        /// The workspace, by id or unique name.
        #[arg(long)]
        workspace: String,
        #[command(subcommand)]
        setting: Setting,
    },
}

#[derive(Debug, Subcommand)]
pub enum Setting {
    /// Which column set holds for project cards.
    ColumnScope {
        #[arg(value_enum)]
        value: ScopeArg,
    },
    /// Whether columns may be created, edited, reordered and deleted.
    ColumnManagement {
        #[arg(value_enum)]
        value: OnOff,
    },
    /// Whether cards of different projects may be linked.
    AllowCrossProjectLinks {
        #[arg(value_enum)]
        value: OnOff,
    },
    /// What the columns' WIP limits do: soft marks a column over its limit on
    /// the board, hard refuses what would put a column over it.
    WipLimits {
        #[arg(value_enum)]
        value: WipArg,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum WipArg {
    Soft,
    Hard,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScopeArg {
    Tenant,
    Project,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let Cmd::Set { workspace, setting } = cmd;
    let ws = board.admin().find_workspace(&workspace).await?;
    let mut patch = SettingsPatch::new(ws.id.clone());
    match setting {
        Setting::ColumnScope { value } => {
            patch.column_scope = Some(match value {
                ScopeArg::Tenant => ColumnScope::Tenant,
                ScopeArg::Project => ColumnScope::Project,
            })
        }
        Setting::ColumnManagement { value } => {
            patch.column_management = Some(matches!(value, OnOff::On))
        }
        Setting::AllowCrossProjectLinks { value } => {
            patch.allow_cross_project_links = Some(matches!(value, OnOff::On))
        }
        Setting::WipLimits { value } => {
            patch.wip_limits = Some(match value {
                WipArg::Soft => WipLimits::Soft,
                WipArg::Hard => WipLimits::Hard,
            })
        }
    }
    let s = board.update_settings(&Actor::Operator, patch).await?;
    out.value(&s, || {
        format!(
            "workspace {:?}: columnScope {}, columnManagement {}, allowCrossProjectLinks {}, \
             wipLimits {}",
            ws.name,
            s.column_scope.as_str(),
            on_off(s.column_management),
            on_off(s.allow_cross_project_links),
            s.wip_limits.as_str()
        )
    });
    Ok(())
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}
