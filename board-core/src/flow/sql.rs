//! The statements of a flow read. One statement computes every history-based
//! number in one pass over the set's history: window functions over each
//! card's entries ordered by `seq` give each visit its end (`LEAD`), the card's
//! first entry (`ROW_NUMBER`) and its first arrival in a done column (`MIN`
//! over the partition); percentiles come from `ROW_NUMBER`/`COUNT` over the
//! sorted durations. No Rust code walks history rows.

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
/// Medians and 85th percentiles are nearest-rank: the smallest duration at or
/// above which 50 % (85 %) of the durations lie at or below.
pub(crate) fn flow_statement(backend: Backend) -> String {
    let secs = |e: &str| backend.epoch_seconds_sql(e);
    let (s, e, done_at, left_at, created) = (
        secs("w.s"),
        secs("w.e"),
        secs("w.done_at"),
        secs("w.left_at"),
        secs("k.created_at"),
    );
    format!(
        "WITH v AS ( \
           SELECT h.card_id, h.to_column_id, h.to_name, h.moved_at AS s, \
             LEAD(h.moved_at) OVER (PARTITION BY h.card_id ORDER BY h.seq) AS e, \
             ROW_NUMBER() OVER (PARTITION BY h.card_id ORDER BY h.seq) AS rn, \
             MIN(CASE WHEN h.to_done = 1 THEN h.moved_at END) OVER (PARTITION BY h.card_id \
               ORDER BY h.seq ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS done_at \
           FROM history h \
           WHERE h.card_id IN (SELECT k.id FROM cards k JOIN columns c ON c.id = k.column_id \
                               WHERE c.set_id = $1) \
         ), \
         w AS MATERIALIZED ( \
           SELECT v.card_id, cc.id AS col, COALESCE(cc.name, v.to_name) AS label, v.s, \
             CASE WHEN v.e < $3 THEN v.e END AS e, v.e AS left_at, v.rn, v.done_at, \
             CASE WHEN v.s < $3 AND (v.e IS NULL OR v.e >= $4) THEN 1 ELSE 0 END AS vis, \
             CASE WHEN v.rn = 1 AND v.done_at >= $2 AND v.done_at < $3 THEN 1 ELSE 0 END AS fin \
           FROM v LEFT JOIN columns cc ON cc.id = v.to_column_id AND cc.set_id = $1 \
           WHERE (v.s < $3 AND (v.e IS NULL OR v.e >= $4)) \
              OR (v.rn = 1 AND v.done_at >= $2 AND v.done_at < $3) \
         ), \
         x AS ( \
           SELECT 'T' AS g, w.col, w.label, {e} - {s} AS d FROM w WHERE w.vis = 1 AND w.e >= $2 \
           UNION ALL \
           SELECT 'L', NULL, NULL, {done_at} - {created} \
           FROM w JOIN cards k ON k.id = w.card_id WHERE w.fin = 1 \
           UNION ALL \
           SELECT 'Y', NULL, NULL, {done_at} - {left_at} FROM w \
           WHERE w.fin = 1 AND w.left_at <= w.done_at \
         ), \
         r AS ( \
           SELECT g, col, label, d, \
             ROW_NUMBER() OVER (PARTITION BY g, col, label ORDER BY d) AS rn, \
             COUNT(*) OVER (PARTITION BY g, col, label) AS n \
           FROM x \
         ), \
         z AS ( \
           SELECT w.label, CASE WHEN w.s < $4 THEN $5 ELSE substr(w.s, 1, 10) END AS day, 1 AS n \
           FROM w WHERE w.vis = 1 \
           UNION ALL \
           SELECT w.label, substr(w.e, 1, 10), -1 FROM w WHERE w.vis = 1 AND w.e IS NOT NULL \
         ) \
         SELECT g AS kind, col, label, CAST(NULL AS TEXT) AS day, COUNT(*) AS n, AVG(d) AS mean, \
           MIN(CASE WHEN rn * 100 >= n * 50 THEN d END) AS median, \
           MIN(CASE WHEN rn * 100 >= n * 85 THEN d END) AS p85 \
         FROM r GROUP BY g, col, label \
         UNION ALL \
         SELECT 'D', NULL, NULL, substr(w.done_at, 1, 10), COUNT(*), \
           CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS DOUBLE PRECISION) \
         FROM w WHERE w.fin = 1 GROUP BY substr(w.done_at, 1, 10) \
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
