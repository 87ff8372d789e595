//! The statements of a flow read. One statement computes every history-based
//! number, set-based on both backends. It reads only the history it needs:
//! each card's entries from the start of the window's first day on (a range
//! on the index `history_time`), plus the entry in force at that moment (the
//! card's latest entry made before it: one seek on the same index, then one
//! on `history_card`); a window function (`LEAD` over each card's entries
//! ordered by `seq`) turns them into visits. Visits carry their column as a
//! small number (the column's rank in the set), so the later sorts compare
//! numbers, not ids. First arrivals in a done column come from the partial
//! index `history_done`. Percentiles come from `CUME_DIST` over the sorted
//! durations; the cumulative flow is a running `SUM` of arrivals and
//! departures, counted from one grouping of the visits by column, start day
//! and end day. No Rust code walks history rows.

use crate::db::Backend;

/// The statement's binds: `$1` the set, `$2` since, `$3` until, `$4` the
/// start of the window's first UTC day, `$5` that day (`YYYY-MM-DD`).
///
/// Each row is `(kind, col, label, day, n, mean, median, p85)`:
/// - `T`: time in a column (`col` the column of the set, or null for a column
///   no longer in it, known by `label`), over visits that ended in the window;
/// - `L` / `Y`: lead / cycle time of the cards whose first arrival in a done
///   column is in the window;
/// - `D`: `n` cards first arrived in a done column on `day`;
/// - `C`: `n` cards were in the column `label` at the end of `day`, for each
///   day on which that number changed (a running sum of arrivals and departures).
///
/// Medians and 85th percentiles are nearest-rank: the smallest duration at
/// or below which at least 50 % (85 %) of the durations lie (`CUME_DIST`).
pub(crate) fn flow_statement(backend: Backend) -> String {
    let secs = |e: &str| backend.epoch_seconds_sql(e);
    let (s, e, done_at, left_at, created) = (
        secs("w.s"),
        secs("w.e"),
        secs("d.done_at"),
        secs("d.left_at"),
        secs("d.created_at"),
    );
    format!(
        "WITH k AS MATERIALIZED ( \
           SELECT k.id, k.created_at, ( \
             SELECT b.seq FROM history b WHERE b.card_id = k.id AND b.moved_at < $4 \
             ORDER BY b.moved_at DESC, b.seq DESC LIMIT 1) AS s0 \
           FROM cards k JOIN columns c ON c.id = k.column_id WHERE c.set_id = $1 \
         ), \
         sc AS MATERIALIZED ( \
           SELECT id, name, ROW_NUMBER() OVER (ORDER BY id) AS n FROM columns WHERE set_id = $1 \
         ), \
         r AS ( \
           SELECT h.card_id, h.seq, h.to_column_id, h.to_name, h.moved_at \
           FROM k CROSS JOIN history h WHERE h.card_id = k.id AND h.moved_at >= $4 \
           UNION ALL \
           SELECT h.card_id, h.seq, h.to_column_id, h.to_name, h.moved_at \
           FROM k CROSS JOIN history h WHERE h.card_id = k.id AND h.seq = k.s0 \
         ), \
         v AS ( \
           SELECT r.to_column_id, r.to_name, r.moved_at AS s, \
             LEAD(r.moved_at) OVER (PARTITION BY r.card_id ORDER BY r.seq) AS e \
           FROM r \
         ), \
         w AS MATERIALIZED ( \
           SELECT sc.n, COALESCE(sc.name, v.to_name) AS label, v.s, \
             CASE WHEN v.e < $3 THEN v.e END AS e \
           FROM v LEFT JOIN sc ON sc.id = v.to_column_id \
           WHERE v.s < $3 \
         ), \
         d AS MATERIALIZED ( \
           SELECT h.moved_at AS done_at, k.created_at, \
             (SELECT l.moved_at FROM history l WHERE l.card_id = h.card_id \
              AND l.seq = (SELECT MIN(m.seq) FROM history m WHERE m.card_id = h.card_id) + 1) AS left_at \
           FROM (SELECT card_id, MIN(seq) AS seq FROM history WHERE to_done = 1 \
                 AND card_id IN (SELECT id FROM k) GROUP BY card_id) f \
           JOIN history h ON h.card_id = f.card_id AND h.seq = f.seq \
           JOIN k ON k.id = f.card_id \
           WHERE h.moved_at >= $2 AND h.moved_at < $3 \
         ), \
         x AS ( \
           SELECT w.n AS g, CASE WHEN w.n IS NULL THEN w.label END AS gone, {e} - {s} AS d \
           FROM w WHERE w.e >= $2 \
           UNION ALL \
           SELECT -1, NULL, {done_at} - {created} FROM d \
           UNION ALL \
           SELECT -2, NULL, {done_at} - {left_at} FROM d WHERE d.left_at <= d.done_at \
         ), \
         ranked AS ( \
           SELECT g, gone, d, CUME_DIST() OVER (PARTITION BY g, gone ORDER BY d) AS cd FROM x \
         ), \
         z0 AS ( \
           SELECT w.label, CASE WHEN w.s < $4 THEN $5 ELSE substr(w.s, 1, 10) END AS d1, \
             substr(w.e, 1, 10) AS d2, COUNT(*) AS n \
           FROM w GROUP BY 1, 2, 3 \
         ), \
         z AS ( \
           SELECT label, d1 AS day, SUM(n) AS n FROM z0 GROUP BY 1, 2 \
           UNION ALL \
           SELECT label, d2, -SUM(n) FROM z0 WHERE d2 IS NOT NULL GROUP BY 1, 2 \
         ) \
         SELECT CASE g WHEN -1 THEN 'L' WHEN -2 THEN 'Y' ELSE 'T' END AS kind, \
           (SELECT sc.id FROM sc WHERE sc.n = ranked.g) AS col, \
           COALESCE((SELECT sc.name FROM sc WHERE sc.n = ranked.g), gone) AS label, \
           CAST(NULL AS TEXT) AS day, COUNT(*) AS n, AVG(d) AS mean, \
           MIN(CASE WHEN cd >= 0.5 THEN d END) AS median, MIN(CASE WHEN cd >= 0.85 THEN d END) AS p85 \
         FROM ranked GROUP BY g, gone \
         UNION ALL \
         SELECT 'D', NULL, NULL, substr(d.done_at, 1, 10), COUNT(*), \
           CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS DOUBLE PRECISION) \
         FROM d GROUP BY substr(d.done_at, 1, 10) \
         UNION ALL \
         SELECT 'C', NULL, label, day, CAST(SUM(SUM(n)) OVER (PARTITION BY label ORDER BY day) AS BIGINT), \
           CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS DOUBLE PRECISION) \
         FROM z GROUP BY label, day"
    )
}

/// The cards in each column of the set now (`$1` the set): `(id, wip)`.
pub(crate) const WIP: &str = "SELECT c.id, COUNT(k.id) AS wip FROM columns c \
     LEFT JOIN cards k ON k.column_id = c.id WHERE c.set_id = $1 GROUP BY c.id";

/// Up to 20 cards of the set (`$1`) outside its done column, oldest first, with
/// their age and time in their column at `$2` (now).
pub(crate) fn aging_statement(backend: Backend) -> String {
    let now = backend.epoch_seconds_sql("$2");
    format!(
        "SELECT k.id, k.title, c.name, {now} - {} AS age, {now} - {} AS in_column \
         FROM cards k JOIN columns c ON c.id = k.column_id \
         LEFT JOIN history h ON h.card_id = k.id AND h.seq = k.history_seq \
         WHERE c.set_id = $1 AND c.done = 0 ORDER BY k.created_at, k.id LIMIT 20",
        backend.epoch_seconds_sql("k.created_at"),
        backend.epoch_seconds_sql("COALESCE(h.moved_at, k.created_at)"),
    )
}
