//! A Markdown preview (api.md §24): text rendered as a card's description or
//! a comment would be shown, before it is saved. Nothing is stored.

use serde::Serialize;
use serde_json::Value;

use crate::access::Actor;
use crate::board::Board;
use crate::error::Result;
use crate::markdown;
use crate::text::Description;
use crate::validate::{self, Fields, FromJson, Input};

/// The body of `POST /api/markdown`: the Markdown to render.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MarkdownInput {
    /// The Markdown, as a description takes it (0 to 100,000 characters; no
    /// control character but line feed, carriage return and tab).
    #[cfg_attr(feature = "openapi", schema(value_type = String, max_length = 100000))]
    pub text: Description,
}

impl FromJson for MarkdownInput {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let text = f.required("text", validate::description);
        f.finish()?;
        Ok(MarkdownInput {
            text: text.expect("checked"),
        })
    }
}

/// A rendered preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Rendered {
    /// The sanitised HTML, as `descriptionHtml` and `contentHtml` give it.
    pub html: String,
}

impl Board {
    /// Renders Markdown as a stored description or comment is shown (the same
    /// renderer, allowlist and limit), for any signed-in caller: the preview
    /// of text being typed. Reads and writes nothing.
    pub fn render_markdown(
        &self,
        _actor: &Actor,
        input: impl Into<Input<MarkdownInput>>,
    ) -> Result<Rendered> {
        let input = input.into().open()?;
        Ok(Rendered {
            html: markdown::to_html(input.text.as_str()),
        })
    }
}
