//! The cumulative flow diagram that `board flow --svg FILE` writes: one
//! stacked band per column, coloured by its accent, over a day axis, with a
//! legend. Pure: the same input gives the same SVG, byte for byte.
//!
//! Layout on a fixed 960×480 canvas: the title at the top, the plot on the
//! left with round card counts on the y axis and dates under it, the legend in
//! a column on the right, its top entry being the top band. Each day is a slot
//! of equal width; a day's counts sit at its slot's centre, and the bands run
//! flat to the plot's edges, so a single day still draws full-width bands.

/// One band of the chart: a column name and its fill colour (#rrggbb).
pub struct Band {
    /// The column's name, as the legend and the band's hover title show it.
    pub name: String,
    /// Its fill, `#rrggbb`; anything else is drawn in slate.
    pub color: String,
}

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 480.0;
const PLOT_LEFT: f64 = 64.0;
const PLOT_TOP: f64 = 64.0;
const PLOT_BOTTOM: f64 = 436.0;
/// The gap between the plot and the legend, room for the last day's label.
const PLOT_GAP: f64 = 40.0;
const LEGEND_RIGHT: f64 = 944.0;
/// A legend column's width, the gap to the next included.
const LEGEND_COLUMN: f64 = 160.0;
const LEGEND_ROW: f64 = 20.0;
/// The most legend columns; past that the rows get tighter.
const LEGEND_COLUMNS: usize = 3;
/// The room a day label needs: "2026-11-30" at 11px, and a gap.
const DAY_LABEL_ROOM: f64 = 80.0;
/// The width of an average character at 12px in a sans-serif font.
const CHAR_WIDTH: f64 = 7.2;
const TITLE_CHARS: usize = 80;
const FONT: &str =
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const SLATE: &str = "#64748b";

/// `days`: UTC dates "YYYY-MM-DD" in order; `counts[d][b]`: cards of band b at the end of day d.
/// Bands are stacked bottom-up in the order given.
///
/// Each band is a `<path class="band" data-column="NAME">` with a `<title>`;
/// a count missing from `counts` is 0. The first and the last day are always
/// labelled; between them every k-th day from the first is, k the smallest of
/// 1, 2, 3, 7, 14, 21… that leaves room for a label, less one too close to the
/// last. With no days, no band is drawn and the plot says "No data".
pub fn render(title: &str, bands: &[Band], days: &[String], counts: &[Vec<u64>]) -> String {
    let count = |d: usize, b: usize| {
        counts
            .get(d)
            .and_then(|row| row.get(b))
            .copied()
            .unwrap_or(0)
    };
    let total = |d: usize| (0..bands.len()).map(|b| count(d, b)).sum::<u64>();
    let max = (0..days.len()).map(total).max().unwrap_or(0);
    let legend = Legend::new(bands.len());
    let scale = Scale::new(max, days.len(), legend.plot_right());

    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{label}\" font-family=\"{FONT}\">\n\
         <title>{label}</title>\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n\
         <text class=\"chart-title\" x=\"{PLOT_LEFT}\" y=\"36\" font-size=\"18\" \
         font-weight=\"600\" fill=\"#111827\">{short}</text>\n",
        w = WIDTH,
        h = HEIGHT,
        label = escape(title),
        short = escape(&truncate(title, TITLE_CHARS)),
    );

    // The y axis: grid lines and their counts, under the bands.
    svg.push_str("<g class=\"y-axis\" font-size=\"11\" fill=\"#4b5563\" text-anchor=\"end\">\n");
    svg.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"start\">cards</text>\n",
        num(PLOT_LEFT - 40.0),
        num(PLOT_TOP - 16.0)
    ));
    let mut value = 0;
    while value <= scale.top {
        let y = num(scale.y(value));
        svg.push_str(&format!(
            "<line class=\"grid\" data-value=\"{value}\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" \
             stroke=\"#e5e7eb\"/>\n<text x=\"{}\" y=\"{}\">{value}</text>\n",
            num(PLOT_LEFT),
            num(scale.right),
            num(PLOT_LEFT - 8.0),
            num(scale.y(value) + 4.0),
        ));
        value += scale.step;
    }
    svg.push_str("</g>\n");

    if days.is_empty() {
        svg.push_str(&format!(
            "<text class=\"no-data\" x=\"{}\" y=\"{}\" font-size=\"14\" fill=\"#6b7280\" \
             text-anchor=\"middle\">No data</text>\n",
            num((PLOT_LEFT + scale.right) / 2.0),
            num((PLOT_TOP + PLOT_BOTTOM) / 2.0),
        ));
    } else {
        // The bands, bottom first; white edges part neighbours of like colours.
        svg.push_str(
            "<g class=\"bands\" stroke=\"#ffffff\" stroke-width=\"1\" stroke-linejoin=\"round\">\n",
        );
        let mut below = vec![0u64; days.len()];
        for (b, band) in bands.iter().enumerate() {
            let above: Vec<u64> = (0..days.len()).map(|d| below[d] + count(d, b)).collect();
            svg.push_str(&format!(
                "<path class=\"band\" data-column=\"{name}\" fill=\"{}\" d=\"{}\">\
                 <title>{name}</title></path>\n",
                fill(&band.color),
                scale.band_path(&below, &above),
                name = escape(&band.name),
            ));
            below = above;
        }
        svg.push_str("</g>\n");

        // The day axis: a tick per day while they fit, a label per labelled day.
        svg.push_str(
            "<g class=\"x-axis\" font-size=\"11\" fill=\"#4b5563\" text-anchor=\"middle\">\n",
        );
        let labelled = labelled_days(days.len(), scale.slot);
        for (d, day) in days.iter().enumerate() {
            let is_labelled = labelled.contains(&d);
            if !is_labelled && scale.slot < 4.0 {
                continue;
            }
            let x = num(scale.x(d));
            let length = if is_labelled { 5.0 } else { 3.0 };
            svg.push_str(&format!(
                "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#9ca3af\"/>\n",
                num(PLOT_BOTTOM),
                num(PLOT_BOTTOM + length),
            ));
            if is_labelled {
                svg.push_str(&format!(
                    "<text class=\"day\" x=\"{x}\" y=\"{}\">{}</text>\n",
                    num(PLOT_BOTTOM + 18.0),
                    escape(day),
                ));
            }
        }
        svg.push_str("</g>\n");
    }
    svg.push_str(&format!(
        "<line class=\"baseline\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#6b7280\"/>\n",
        num(PLOT_LEFT),
        num(scale.right),
        y = num(PLOT_BOTTOM),
    ));

    svg.push_str(&legend.render(bands));
    svg.push_str("</svg>\n");
    svg
}

/// The hex colour of an accent token; unknown names get slate's.
pub fn accent_hex(accent: &str) -> &'static str {
    match accent {
        "gray" => "#6b7280",
        "red" => "#ef4444",
        "orange" => "#f97316",
        "amber" => "#f59e0b",
        "yellow" => "#eab308",
        "lime" => "#84cc16",
        "green" => "#22c55e",
        "emerald" => "#10b981",
        "teal" => "#14b8a6",
        "cyan" => "#06b6d4",
        "sky" => "#0ea5e9",
        "blue" => "#3b82f6",
        "indigo" => "#6366f1",
        "violet" => "#8b5cf6",
        "purple" => "#a855f7",
        "fuchsia" => "#d946ef",
        "pink" => "#ec4899",
        "rose" => "#f43f5e",
        _ => SLATE,
    }
}

/// From counts to the canvas.
struct Scale {
    /// The top of the y axis: a multiple of `step`, at least 1.
    top: u64,
    /// The y axis's step: 1, 2 or 5 times a power of ten, for at most 5 steps.
    step: u64,
    /// The width of a day's slot.
    slot: f64,
    /// The plot's right edge.
    right: f64,
}

impl Scale {
    fn new(max: u64, days: usize, right: f64) -> Scale {
        let mut power = 1;
        let step = loop {
            if let Some(step) = [1, 2, 5]
                .map(|m| m * power)
                .into_iter()
                .find(|s| max.div_ceil(*s) <= 5)
            {
                break step;
            }
            power *= 10;
        };
        let top = max.div_ceil(step).max(1) * step;
        Scale {
            top,
            step,
            slot: (right - PLOT_LEFT) / days.max(1) as f64,
            right,
        }
    }

    /// The centre of day `d`'s slot.
    fn x(&self, d: usize) -> f64 {
        PLOT_LEFT + self.slot * (d as f64 + 0.5)
    }

    fn y(&self, value: u64) -> f64 {
        PLOT_BOTTOM - (PLOT_BOTTOM - PLOT_TOP) * value as f64 / self.top as f64
    }

    /// The outline between two edges: the upper one left to right, from the
    /// plot's left edge through each day's centre to its right edge, then the
    /// lower one back.
    fn band_path(&self, lower: &[u64], upper: &[u64]) -> String {
        let last = upper.len() - 1;
        let mut points: Vec<(f64, u64)> = vec![(PLOT_LEFT, upper[0])];
        points.extend(upper.iter().enumerate().map(|(d, v)| (self.x(d), *v)));
        points.push((self.right, upper[last]));
        points.push((self.right, lower[last]));
        points.extend(lower.iter().enumerate().rev().map(|(d, v)| (self.x(d), *v)));
        points.push((PLOT_LEFT, lower[0]));
        let mut path = String::new();
        for (i, (x, v)) in points.iter().enumerate() {
            path.push_str(if i == 0 { "M" } else { " L" });
            path.push_str(&format!("{},{}", num(*x), num(self.y(*v))));
        }
        path.push_str(" Z");
        path
    }
}

/// The days that get a label (see `render`).
fn labelled_days(days: usize, slot: f64) -> Vec<usize> {
    if days == 0 {
        return Vec::new();
    }
    let mut every = (DAY_LABEL_ROOM / slot).ceil().max(1.0) as usize;
    if every > 3 {
        every = every.div_ceil(7) * 7;
    }
    let last = days - 1;
    let mut labelled: Vec<usize> = (0..last)
        .step_by(every)
        .filter(|d| *d == 0 || (last - d) as f64 * slot >= DAY_LABEL_ROOM)
        .collect();
    labelled.push(last);
    labelled
}

/// Where the legend goes: at the right, top band first, in up to three
/// columns when the bands don't fit in one, the plot giving up the room.
struct Legend {
    columns: usize,
    rows: usize,
    /// A row's height.
    row: f64,
}

impl Legend {
    fn new(bands: usize) -> Legend {
        let room = PLOT_BOTTOM - PLOT_TOP;
        let fits = (room / LEGEND_ROW) as usize;
        let columns = bands.div_ceil(fits).clamp(1, LEGEND_COLUMNS);
        let rows = bands.div_ceil(columns).max(1);
        let row = LEGEND_ROW.min(room / rows as f64);
        Legend { columns, rows, row }
    }

    fn left(&self) -> f64 {
        LEGEND_RIGHT - LEGEND_COLUMN * self.columns as f64
    }

    fn plot_right(&self) -> f64 {
        self.left() - PLOT_GAP
    }

    /// A swatch and a name per band, names cut to their column's room.
    fn render(&self, bands: &[Band]) -> String {
        let swatch = (self.row - 4.0).min(14.0);
        let font = (self.row - 2.0).min(12.0);
        let chars = ((LEGEND_COLUMN - swatch - 18.0) / (CHAR_WIDTH * font / 12.0)) as usize;
        let mut svg = format!(
            "<g class=\"legend\" font-size=\"{}\" fill=\"#1f2937\">\n",
            num(font)
        );
        for (i, band) in bands.iter().rev().enumerate() {
            let x = self.left() + LEGEND_COLUMN * (i / self.rows) as f64;
            let y = PLOT_TOP + self.row * (i % self.rows) as f64;
            svg.push_str(&format!(
                "<g class=\"legend-item\" data-column=\"{name}\"><title>{name}</title>\
                 <rect x=\"{}\" y=\"{}\" width=\"{swatch}\" height=\"{swatch}\" rx=\"3\" \
                 fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
                num(x),
                num(y),
                fill(&band.color),
                num(x + swatch + 6.0),
                num(y + swatch / 2.0 + font / 3.0),
                escape(&truncate(&band.name, chars)),
                name = escape(&band.name),
                swatch = num(swatch),
            ));
        }
        svg.push_str("</g>\n");
        svg
    }
}

/// `color` when it is `#rrggbb`, slate otherwise.
fn fill(color: &str) -> &str {
    let hex = color.strip_prefix('#').unwrap_or("");
    if hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
        color
    } else {
        SLATE
    }
}

/// `text` cut to `max` characters, its last one then being "…".
fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let mut cut = cut.trim_end().to_string();
    cut.push('…');
    cut
}

/// `text` as XML character data or attribute value.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with at most two decimals, none needless.
fn num(value: f64) -> String {
    let text = format!("{:.2}", value);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use board_core::Accent;

    use super::*;

    fn band(name: &str, accent: &str) -> Band {
        Band {
            name: name.to_string(),
            color: accent_hex(accent).to_string(),
        }
    }

    /// `n` days from 2026-11-01 on (October's too, past November's 30).
    fn days(n: usize) -> Vec<String> {
        (0..n)
            .map(|d| match d {
                0..=29 => format!("2026-11-{:02}", d + 1),
                30..=60 => format!("2026-12-{:02}", d - 29),
                _ => format!("2027-01-{:02}", d - 60),
            })
            .collect()
    }

    /// The attribute `name` of each element of class `class`.
    fn attributes<'a>(doc: &'a roxmltree::Document, class: &str, name: &str) -> Vec<&'a str> {
        with_class(doc, class)
            .iter()
            .map(|n| n.attribute(name).expect(name))
            .collect()
    }

    /// The committed sample: 30 days of To do, Doing, Review and Done growing,
    /// and a QA column that existed for the first 10 days only.
    fn sample() -> (Vec<Band>, Vec<String>, Vec<Vec<u64>>) {
        let bands = vec![
            band("Done", "green"),
            band("QA", "violet"),
            band("Review", "amber"),
            band("Doing", "blue"),
            band("To do", "slate"),
        ];
        let counts = (0..30u64)
            .map(|d| {
                let total = 14 + d * 6 / 5;
                let done = d * 4 / 5;
                let qa = if d < 10 { 2 + d % 3 } else { 0 };
                let review = 2 + (d % 4) / 2 + u64::from(d >= 10);
                let doing = 4 + u64::from(d % 5 == 0) + d / 10;
                vec![done, qa, review, doing, total - done - qa - review - doing]
            })
            .collect();
        (bands, days(30), counts)
    }

    fn parse(svg: &str) -> roxmltree::Document<'_> {
        roxmltree::Document::parse(svg).expect("well-formed XML")
    }

    fn with_class<'a, 'i>(
        doc: &'a roxmltree::Document<'i>,
        class: &str,
    ) -> Vec<roxmltree::Node<'a, 'i>> {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .collect()
    }

    fn attr(node: &roxmltree::Node, name: &str) -> f64 {
        node.attribute(name).expect(name).parse().expect("a number")
    }

    /// The points of a band's outline.
    fn points(path: &roxmltree::Node) -> Vec<(f64, f64)> {
        path.attribute("d")
            .expect("d")
            .split(['M', 'L', 'Z'])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (x, y) = p.split_once(',').expect("x,y");
                (x.parse().expect("x"), y.parse().expect("y"))
            })
            .collect()
    }

    #[test]
    fn sample_is_well_formed_with_a_band_and_a_legend_entry_per_column() {
        let (bands, days, counts) = sample();
        let svg = render("Flow of Board", &bands, &days, &counts);
        let doc = parse(&svg);
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let names: Vec<&str> = bands.iter().map(|b| b.name.as_str()).collect();
        let drawn = attributes(&doc, "band", "data-column");
        assert_eq!(drawn, names);
        for path in with_class(&doc, "band") {
            assert_eq!(path.tag_name().name(), "path");
            let title = path
                .children()
                .find(|c| c.has_tag_name("title"))
                .expect("a title");
            assert_eq!(title.text(), path.attribute("data-column"));
        }
        let legend = attributes(&doc, "legend-item", "data-column");
        assert_eq!(
            legend,
            names.iter().rev().copied().collect::<Vec<_>>(),
            "top band first"
        );
        let fills = attributes(&doc, "band", "fill");
        assert_eq!(
            fills,
            ["#22c55e", "#8b5cf6", "#f59e0b", "#3b82f6", "#64748b"]
        );
    }

    #[test]
    fn the_committed_sample_is_what_render_draws() {
        // BOARD_BLESS=1 cargo test -p board-cli flow_svg rewrites it.
        let (bands, days, counts) = sample();
        let svg = render("Flow of Board", &bands, &days, &counts);
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/flow-sample.svg");
        if std::env::var_os("BOARD_BLESS").is_some() {
            std::fs::write(&path, &svg).expect("write the sample");
        }
        let committed = std::fs::read_to_string(&path).expect("docs/flow-sample.svg");
        assert!(
            committed == svg,
            "docs/flow-sample.svg is stale: BOARD_BLESS=1 rewrites it"
        );
        assert_eq!(
            render("Flow of Board", &bands, &days, &counts),
            svg,
            "deterministic"
        );
    }

    #[test]
    fn first_and_last_days_are_labelled_without_overlap() {
        for n in [1, 2, 7, 8, 9, 10, 11, 29, 30, 31, 80, 365] {
            let all = days(n.min(90));
            let all: Vec<String> = (0..n)
                .map(|d| all.get(d).cloned().unwrap_or(format!("d{d}")))
                .collect();
            let counts = vec![vec![1, 2]; n];
            let svg = render("t", &[band("A", "red"), band("B", "blue")], &all, &counts);
            let doc = parse(&svg);
            let labels = with_class(&doc, "day");
            let texts: Vec<&str> = labels.iter().map(|l| l.text().expect("text")).collect();
            assert_eq!(texts.first(), Some(&all[0].as_str()), "{n} days");
            assert_eq!(texts.last(), Some(&all[n - 1].as_str()), "{n} days");
            let xs: Vec<f64> = labels.iter().map(|l| attr(l, "x")).collect();
            assert!(
                xs.windows(2).all(|w| w[1] - w[0] >= DAY_LABEL_ROOM),
                "{n} days: {xs:?}"
            );
            if n <= 8 {
                assert_eq!(texts.len(), n, "every day labelled while they fit");
            }
        }
        let slot = (Legend::new(2).plot_right() - PLOT_LEFT) / 80.0;
        let labelled = labelled_days(80, slot);
        assert_eq!(
            labelled,
            [0, 14, 28, 42, 56, 79],
            "every other week, and the last day"
        );
    }

    #[test]
    fn names_and_title_are_escaped() {
        let name = "R&D <x> \"q\" 'a'";
        let svg = render(
            "Flow of R&D <x>",
            &[band(name, "rose")],
            &days(3),
            &[vec![1], vec![2], vec![3]],
        );
        assert!(svg.contains("R&amp;D &lt;x&gt; &quot;q&quot; &apos;a&apos;"));
        let doc = parse(&svg);
        assert_eq!(
            with_class(&doc, "band")[0].attribute("data-column"),
            Some(name)
        );
        assert_eq!(
            with_class(&doc, "chart-title")[0].text(),
            Some("Flow of R&D <x>")
        );
        let item = &with_class(&doc, "legend-item")[0];
        assert_eq!(
            item.descendants()
                .find(|n| n.has_tag_name("text"))
                .and_then(|n| n.text()),
            Some(name)
        );
    }

    #[test]
    fn the_top_edge_of_each_band_is_the_running_total() {
        // Totals 4, 10 and 6 on a 0..10 axis (step 2).
        let counts = [vec![1, 1, 2], vec![5, 3, 2], vec![0, 0, 6]];
        let bands = [
            band("Done", "green"),
            band("Doing", "blue"),
            band("To do", "gray"),
        ];
        let doc_text = render("t", &bands, &days(3), &counts);
        let doc = parse(&doc_text);
        let grid = |value: &str| {
            let line = with_class(&doc, "grid")
                .into_iter()
                .find(|l| l.attribute("data-value") == Some(value));
            attr(
                &line.unwrap_or_else(|| panic!("a grid line at {value}")),
                "y1",
            )
        };
        let values = attributes(&doc, "grid", "data-value");
        assert_eq!(values, ["0", "2", "4", "6", "8", "10"]);
        let paths = with_class(&doc, "band");
        // Point 0 is the left edge, then one per day.
        let top = |b: usize, d: usize| points(&paths[b])[1 + d].1;
        assert_eq!(top(2, 0), grid("4"));
        assert_eq!(top(2, 1), grid("10"));
        assert_eq!(top(2, 2), grid("6"));
        assert_eq!(top(1, 1), grid("8"));
        assert!(
            (top(0, 1) - (grid("4") + grid("6")) / 2.0).abs() < 0.01,
            "5 is halfway"
        );
        // Each band's lower edge is the upper edge of the one below.
        for b in 1..3 {
            let below = points(&paths[b - 1]);
            let own = points(&paths[b]);
            let n = own.len();
            for d in 0..3 {
                assert_eq!(own[n - 2 - d].1, below[1 + d].1, "band {b} day {d}");
            }
        }
    }

    #[test]
    fn one_day_draws_bands_across_the_plot() {
        let svg = render(
            "t",
            &[band("A", "teal"), band("B", "pink")],
            &days(1),
            &[vec![3, 2]],
        );
        let doc = parse(&svg);
        for path in with_class(&doc, "band") {
            let xs: Vec<f64> = points(&path).iter().map(|p| p.0).collect();
            let (min, max) = xs
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
            assert_eq!((min, max), (PLOT_LEFT, Legend::new(2).plot_right()));
        }
        assert_eq!(with_class(&doc, "day").len(), 1);
    }

    #[test]
    fn no_days_draws_an_empty_chart_that_says_so() {
        let svg = render("t", &[band("A", "teal")], &[], &[]);
        let doc = parse(&svg);
        assert!(with_class(&doc, "band").is_empty());
        assert_eq!(with_class(&doc, "no-data").len(), 1);
        assert_eq!(with_class(&doc, "legend-item").len(), 1);
    }

    #[test]
    fn all_zero_counts_still_have_an_axis_up_to_one() {
        let svg = render("t", &[band("A", "teal")], &days(4), &vec![vec![0]; 4]);
        let doc = parse(&svg);
        let values = attributes(&doc, "grid", "data-value");
        assert_eq!(values, ["0", "1"]);
        assert_eq!(with_class(&doc, "band").len(), 1);
    }

    #[test]
    fn round_steps_for_larger_counts() {
        let steps: Vec<(u64, u64)> = [1, 5, 6, 11, 48, 99, 101, 1234]
            .iter()
            .map(|m| {
                let s = Scale::new(*m, 1, 700.0);
                (s.step, s.top)
            })
            .collect();
        assert_eq!(
            steps,
            [
                (1, 1),
                (1, 5),
                (2, 6),
                (5, 15),
                (10, 50),
                (20, 100),
                (50, 150),
                (500, 1500)
            ]
        );
    }

    #[test]
    fn long_names_are_cut_in_the_legend_and_many_bands_fit_the_canvas() {
        let long = "A very long column name that goes on and on";
        let mut bands = vec![band(long, "red")];
        bands.extend(
            (0..39).map(|i| band(&format!("Column {i}"), Accent::ALL[i % Accent::ALL.len()])),
        );
        let svg = render("t", &bands, &days(5), &vec![vec![1; 40]; 5]);
        let doc = parse(&svg);
        assert_eq!(with_class(&doc, "band").len(), 40);
        let items = with_class(&doc, "legend-item");
        assert_eq!(items.len(), 40);
        let last = items.last().expect("the bottom band's entry");
        let text = last
            .descendants()
            .find(|n| n.has_tag_name("text"))
            .and_then(|n| n.text())
            .expect("text");
        assert!(
            text.ends_with('…') && long.starts_with(text.trim_end_matches('…')),
            "{text}"
        );
        let title = last
            .children()
            .find(|n| n.has_tag_name("title"))
            .and_then(|n| n.text());
        assert_eq!(title, Some(long));
        for item in items {
            let rect = item
                .children()
                .find(|n| n.has_tag_name("rect"))
                .expect("swatch");
            let (x, y) = (attr(&rect, "x"), attr(&rect, "y"));
            assert!(
                x > Legend::new(40).plot_right() && x + 14.0 <= LEGEND_RIGHT,
                "{x}"
            );
            assert!(y + attr(&rect, "height") <= PLOT_BOTTOM, "{y}");
        }
    }

    #[test]
    fn every_accent_has_its_own_colour() {
        let colours: Vec<&str> = Accent::ALL.iter().map(|a| accent_hex(a)).collect();
        let mut distinct = colours.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), Accent::ALL.len());
        assert_eq!(accent_hex("slate"), "#64748b");
        assert_eq!(accent_hex("no-such"), "#64748b");
        assert!(colours.iter().all(|c| fill(c) == *c), "all #rrggbb");
        assert_eq!(fill("red; x"), SLATE);
    }

    #[test]
    fn numbers_have_no_needless_decimals() {
        assert_eq!(num(64.0), "64");
        assert_eq!(num(100.0), "100");
        assert_eq!(num(12.5), "12.5");
        assert_eq!(num(1.0 / 3.0), "0.33");
        assert_eq!(num(-0.001), "0");
    }
}
