//! What an account wants by e-mail (api.md §26): per kind of notification,
//! and how long its notifications gather before they go out as one message.
//! The inbox always gets every kind. No row: the defaults (e-mail for
//! `assigned`, `mentioned` and `due_soon`, every 5 minutes).

use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use crate::access::Actor;
use crate::board::Board;
use crate::error::{Error, Result};
use crate::ids::AccountId;
use crate::validate::{self, Fields, FromJson, Input};

/// The longest a batch gathers, in minutes (a day).
pub const MAX_BATCH_MINUTES: i64 = 1440;

/// The kinds of notification, as the preferences name them.
pub const KINDS: [&str; 5] = ["assigned", "mentioned", "commented", "moved", "due_soon"];

/// Which kinds an account wants by e-mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MailKinds {
    /// Assigned to a card (default on).
    pub assigned: bool,
    /// Named in a comment or description (default on).
    pub mentioned: bool,
    /// A comment on a watched card (default off).
    pub commented: bool,
    /// A watched card moved (default off).
    pub moved: bool,
    /// A card's due time is near (default on).
    pub due_soon: bool,
}

impl MailKinds {
    /// Whether `kind` is wanted.
    pub fn wants(&self, kind: &str) -> bool {
        match kind {
            "assigned" => self.assigned,
            "mentioned" => self.mentioned,
            "commented" => self.commented,
            "moved" => self.moved,
            "due_soon" => self.due_soon,
            _ => false,
        }
    }
}

/// `GET /api/me/notifications`: what the caller wants by e-mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MailPreferences {
    /// Per kind: whether it is e-mailed.
    pub email: MailKinds,
    /// How long notifications gather before one message (0: at once; at
    /// most 1440).
    pub batch_minutes: i64,
}

impl Default for MailPreferences {
    fn default() -> Self {
        MailPreferences {
            email: MailKinds {
                assigned: true,
                mentioned: true,
                commented: false,
                moved: false,
                due_soon: true,
            },
            batch_minutes: 5,
        }
    }
}

/// The body of `PATCH /api/me/notifications`: the same shape, every part
/// optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreferencesPatch {
    /// Per kind, `Some` to change it, in the order of the kinds (`KINDS`).
    pub email: [Option<bool>; 5],
    /// A new gathering time, 0 to 1440 minutes.
    pub batch_minutes: Option<i64>,
}

impl FromJson for PreferencesPatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let email = f.optional("email", |v| {
            let obj = v
                .as_object()
                .ok_or("Expected an object of the kinds (assigned, mentioned, commented, moved, due_soon), each true or false")?;
            let mut kinds = [None; 5];
            for (key, value) in obj {
                let i = KINDS.iter().position(|k| k == key).ok_or_else(|| {
                    format!("Unknown kind '{key}': expected assigned, mentioned, commented, moved or due_soon")
                })?;
                kinds[i] = Some(validate::boolean(value).map_err(|m| format!("{key}: {m}"))?);
            }
            Ok(kinds)
        });
        let batch_minutes = f.optional("batchMinutes", |v| {
            v.as_i64()
                .filter(|n| (0..=MAX_BATCH_MINUTES).contains(n))
                .ok_or_else(|| {
                    format!("Expected a whole number of minutes from 0 to {MAX_BATCH_MINUTES}")
                })
        });
        f.finish()?;
        Ok(PreferencesPatch {
            email: email.unwrap_or_default(),
            batch_minutes,
        })
    }
}

/// The account an operation of one's own preferences acts for: 403 for
/// the operator, who has none.
fn owner(actor: &Actor) -> Result<&AccountId> {
    actor.account().ok_or_else(|| {
        Error::Forbidden("only an account has e-mail preferences; the operator has none".into())
    })
}

/// The columns of `mail_preferences`, as the query reads them.
const COLUMNS: &str = "assigned, mentioned, commented, moved, due_soon, batch_minutes";

/// Preferences from a row of [`COLUMNS`].
pub(crate) fn from_row(row: &sqlx::any::AnyRow) -> Result<MailPreferences> {
    let on = |k: &str| -> Result<bool> { Ok(row.try_get::<i64, _>(k)? == 1) };
    Ok(MailPreferences {
        email: MailKinds {
            assigned: on("assigned")?,
            mentioned: on("mentioned")?,
            commented: on("commented")?,
            moved: on("moved")?,
            due_soon: on("due_soon")?,
        },
        batch_minutes: row.try_get("batch_minutes")?,
    })
}

/// E-mail preferences (api.md §26): the operations of `mail/prefs.rs`.
impl Board {
    /// The caller's e-mail preferences (`GET /api/me/notifications`).
    pub async fn mail_preferences(&self, actor: &Actor) -> Result<MailPreferences> {
        let account = owner(actor)?;
        let sql = format!("SELECT {COLUMNS} FROM mail_preferences WHERE account_id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(account)
            .fetch_optional(&self.pool)
            .await?;
        match row {
            Some(row) => from_row(&row),
            None => Ok(MailPreferences::default()),
        }
    }

    /// Changes the caller's e-mail preferences, the parts given
    /// (`PATCH /api/me/notifications`), in one statement; returns them all.
    pub async fn update_mail_preferences(
        &self,
        actor: &Actor,
        input: impl Into<Input<PreferencesPatch>>,
    ) -> Result<MailPreferences> {
        let account = owner(actor)?;
        let patch = input.into().open()?;
        let d = MailPreferences::default();
        let defaults = [
            d.email.assigned,
            d.email.mentioned,
            d.email.commented,
            d.email.moved,
            d.email.due_soon,
        ];
        let mut q_sets = Vec::new();
        let mut values = Vec::new();
        for (i, kind) in KINDS.iter().enumerate() {
            let n = i + 2;
            values.push(patch.email[i].map(i64::from));
            q_sets.push(format!("{kind} = COALESCE(${n}, mail_preferences.{kind})"));
        }
        let sql = format!(
            "INSERT INTO mail_preferences (account_id, {COLUMNS}) \
             VALUES ($1, COALESCE($2, {}), COALESCE($3, {}), COALESCE($4, {}), COALESCE($5, {}), \
                 COALESCE($6, {}), COALESCE($7, {})) \
             ON CONFLICT (account_id) DO UPDATE SET {}, \
                 batch_minutes = COALESCE($7, mail_preferences.batch_minutes) \
             RETURNING {COLUMNS}",
            i64::from(defaults[0]),
            i64::from(defaults[1]),
            i64::from(defaults[2]),
            i64::from(defaults[3]),
            i64::from(defaults[4]),
            d.batch_minutes,
            q_sets.join(", "),
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(account);
        for v in values {
            q = q.bind(v);
        }
        let mut tx = self.write_unlocked().await?;
        let row = q.bind(patch.batch_minutes).fetch_one(&mut *tx).await?;
        let prefs = from_row(&row)?;
        tx.commit().await?;
        Ok(prefs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_patch_names_known_kinds_and_minutes_in_range() {
        let p = PreferencesPatch::from_json(&json!({"email": {"moved": true}, "batchMinutes": 0}))
            .unwrap();
        assert_eq!(p.email, [None, None, None, Some(true), None]);
        assert_eq!(p.batch_minutes, Some(0));
        assert!(PreferencesPatch::from_json(&json!({})).is_ok());
        for bad in [
            json!({"email": {"liked": true}}),
            json!({"email": {"moved": 1}}),
            json!({"email": true}),
            json!({"batchMinutes": 1441}),
            json!({"batchMinutes": -1}),
            json!({"batchMinutes": 1.5}),
            json!({"other": 1}),
        ] {
            assert!(PreferencesPatch::from_json(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_defaults_are_the_contracts() {
        let d = serde_json::to_value(MailPreferences::default()).unwrap();
        assert_eq!(
            d,
            json!({"email": {"assigned": true, "mentioned": true, "commented": false, "moved": false, "due_soon": true}, "batchMinutes": 5})
        );
    }
}
