//! Placeholder of the cumulative flow renderer (replaced by the renderer
//! branch): the signature the CLI calls, and a minimal valid SVG.

/// One band of the chart: a column name and its fill colour (#rrggbb).
pub struct Band {
    /// The column's name.
    pub name: String,
    /// Its fill colour.
    pub color: String,
}

/// `days`: UTC dates "YYYY-MM-DD" in order; `counts[d][b]`: cards of band b at
/// the end of day d. Bands are drawn bottom-up in the order given (put the
/// done column at the bottom, as cumulative flow diagrams do).
pub fn render(title: &str, bands: &[Band], days: &[String], counts: &[Vec<u64>]) -> String {
    let _ = (days, counts);
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let swatches: String = bands
        .iter()
        .enumerate()
        .map(|(i, b)| {
            format!(
                "<rect x=\"{}\" y=\"30\" width=\"16\" height=\"8\" fill=\"{}\"><title>{}</title></rect>",
                8 + 20 * i,
                escape(&b.color),
                escape(&b.name)
            )
        })
        .collect();
    let title = escape(title);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"48\" viewBox=\"0 0 640 48\">\
         <title>{title}</title><text x=\"8\" y=\"20\">{title}</text>{swatches}</svg>\n"
    )
}

/// The hex colour of an accent token (slate, gray, red, … the contract's
/// list); unknown names get slate's.
pub fn accent_hex(accent: &str) -> &'static str {
    match accent {
        "gray" => "#6b7280",
        _ => "#64748b",
    }
}
