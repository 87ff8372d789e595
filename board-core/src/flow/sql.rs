//! The statements of a flow read. One statement computes every history-based
//! number, set-based on both backends. It reads only the history it needs,
//! all of it from the covering index `history_time (card_id, moved_at, seq,
//! to_column_id, from_column_id, from_at)`. Each entry ends the visit its
//! card's previous entry began, and carries that visit's column and start
//! (`from_column_id`, `from_at`, written with the entry); so the visits that
//! ended in the window are the window's entries, a range per card, and the one
//! still running at its end is the card's latest entry before it, one seek per
//! card. Visits carry their column as a small number (the column's rank in the
//! set); the name is read from the table only for a column no longer in the
//! set. The visits are materialized once. First arrivals in a done column come
//! from the partial index `history_done`. Durations are whole milliseconds;
//! each group's are returned sorted, in one list, and the percentiles are read
//! off it by rank ([`percentiles`]). The cumulative flow is a running `SUM` of
//! arrivals and departures, counted from one grouping of the visits by column,
//! first day and last day. An archived card leaves the cumulative flow for its
//! stays off the board (`card_archives`, api.md §19): each stay's overlap with
//! a visit is a departure from that visit's column on its first day and an
//! arrival on its last (none while it lasts), the same running sum with the
//! opposite sign. Time in column, lead and cycle time are not changed by
//! archiving. No Rust code walks history rows.

use crate::store::Backend;

/// The statement's binds: `$1` the set, `$2` since, `$3` until, `$4` the
/// start of the window's first UTC day, `$5` that day (`YYYY-MM-DD`).
///
/// Each row is `(kind, col, label, day, n, mean, ds)`:
/// - `T`: time in a column (`col` the column of the set, or null for a column
///   no longer in it, known by `label`), over visits that ended in the window;
/// - `L` / `Y`: lead / cycle time of the cards whose first arrival in a done
///   column is in the window;
/// - `D`: `n` cards first arrived in a done column on `day`;
/// - `C`: `n` cards were in the column `label` at the end of `day`, for each
///   day on which that number changed (a running sum of arrivals and departures).
///
/// For `T`, `L` and `Y`, `mean` is the mean duration and `ds` every duration,
/// in whole milliseconds, ascending and comma-separated.
pub(crate) fn flow_statement(backend: Backend) -> String {
    // Milliseconds from `b` to `a`, two times stored as RFC 3339 text.
    let millis = |a: &str, b: &str| {
        format!(
            "CAST(ROUND(({} - {}) * 1000) AS BIGINT)",
            backend.epoch_seconds_sql(a),
            backend.epoch_seconds_sql(b)
        )
    };
    let (visit, lead, cycle) = (
        millis("h.moved_at", "h.from_at"),
        millis("d.done_at", "d.created_at"),
        millis("d.done_at", "d.left_at"),
    );
    let sorted = backend.sorted_list_sql();
    // The name of a column no longer in the set, as the entry `h` knows it:
    // `{name}` is `from_name` (the visit it ends) or `to_name` (the one it begins).
    let gone = |name: &str| {
        format!(
            "CASE WHEN sc.n IS NULL THEN (SELECT g.{name} FROM history g \
             WHERE g.card_id = h.card_id AND g.seq = h.seq) END"
        )
    };
    let (gone_from, gone_to) = (gone("from_name"), gone("to_name"));
    format!(
        "WITH k AS MATERIALIZED ( \
           SELECT k.id, k.created_at, ( \
             SELECT b.seq FROM history b WHERE b.card_id = k.id AND b.moved_at < $3 \
             ORDER BY b.moved_at DESC, b.seq DESC LIMIT 1) AS s1 \
           FROM cards k JOIN columns c ON c.id = k.column_id WHERE c.set_id = $1 \
         ), \
         sc AS MATERIALIZED ( \
           SELECT id, name, ROW_NUMBER() OVER (ORDER BY id) AS n FROM columns WHERE set_id = $1 \
         ), \
         w AS MATERIALIZED ( \
           SELECT sc.n, {gone_from} AS gone, \
             CASE WHEN h.from_at < $4 THEN $5 ELSE substr(h.from_at, 1, 10) END AS d1, \
             substr(h.moved_at, 1, 10) AS d2, \
             CASE WHEN h.moved_at >= $2 THEN {visit} END AS d, \
             h.card_id AS card, h.from_at AS t1, h.moved_at AS t2 \
           FROM k CROSS JOIN history h LEFT JOIN sc ON sc.id = h.from_column_id \
           WHERE h.card_id = k.id AND h.moved_at >= $4 AND h.moved_at < $3 \
             AND h.from_at IS NOT NULL \
           UNION ALL \
           SELECT sc.n, {gone_to}, \
             CASE WHEN h.moved_at < $4 THEN $5 ELSE substr(h.moved_at, 1, 10) END, \
             CAST(NULL AS TEXT), CAST(NULL AS BIGINT), h.card_id, h.moved_at, CAST(NULL AS TEXT) \
           FROM k CROSS JOIN history h LEFT JOIN sc ON sc.id = h.to_column_id \
           WHERE h.card_id = k.id AND h.seq = k.s1 \
         ), \
         a AS ( \
           SELECT n, gone, CASE WHEN o1 < $4 THEN $5 ELSE substr(o1, 1, 10) END AS d1, \
             substr(CASE WHEN t2 IS NULL THEN e WHEN e IS NULL THEN t2 \
                         WHEN e < t2 THEN e ELSE t2 END, 1, 10) AS d2 \
           FROM ( \
             SELECT w.n, w.gone, w.t2, \
               CASE WHEN s.archived_at > w.t1 THEN s.archived_at ELSE w.t1 END AS o1, \
               CASE WHEN s.restored_at < $3 THEN s.restored_at END AS e \
             FROM w JOIN card_archives s ON s.card_id = w.card \
             WHERE s.archived_at < $3 AND (w.t2 IS NULL OR s.archived_at < w.t2) \
               AND (s.restored_at IS NULL OR (s.restored_at > w.t1 AND s.restored_at >= $4)) \
           ) o \
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
           SELECT w.n AS g, w.gone, w.d FROM w WHERE w.d IS NOT NULL \
           UNION ALL \
           SELECT -1, NULL, {lead} FROM d \
           UNION ALL \
           SELECT -2, NULL, {cycle} FROM d WHERE d.left_at <= d.done_at \
         ), \
         z0 AS ( \
           SELECT n, gone, d1, d2, SUM(s) AS c FROM ( \
             SELECT n, gone, d1, d2, 1 AS s FROM w \
             UNION ALL \
             SELECT n, gone, d1, d2, -1 FROM a \
           ) v GROUP BY n, gone, d1, d2 \
         ), \
         z1 AS ( \
           SELECT COALESCE(sc.name, z0.gone) AS label, z0.d1, z0.d2, z0.c \
           FROM z0 LEFT JOIN sc ON sc.n = z0.n \
         ), \
         z AS ( \
           SELECT label, d1 AS day, SUM(c) AS c FROM z1 GROUP BY label, d1 \
           UNION ALL \
           SELECT label, d2, -SUM(c) FROM z1 WHERE d2 IS NOT NULL GROUP BY label, d2 \
         ) \
         SELECT CASE g WHEN -1 THEN 'L' WHEN -2 THEN 'Y' ELSE 'T' END AS kind, \
           (SELECT sc.id FROM sc WHERE sc.n = x.g) AS col, \
           COALESCE((SELECT sc.name FROM sc WHERE sc.n = x.g), gone) AS label, \
           CAST(NULL AS TEXT) AS day, COUNT(*) AS n, CAST(AVG(d) AS DOUBLE PRECISION) AS mean, \
           {sorted} AS ds \
         FROM x GROUP BY g, gone \
         UNION ALL \
         SELECT 'D', NULL, NULL, substr(d.done_at, 1, 10), COUNT(*), \
           CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS TEXT) \
         FROM d GROUP BY substr(d.done_at, 1, 10) \
         UNION ALL \
         SELECT 'C', NULL, label, day, CAST(SUM(SUM(c)) OVER (PARTITION BY label ORDER BY day) AS BIGINT), \
           CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS TEXT) \
         FROM z GROUP BY label, day"
    )
}

/// The nearest-rank median and 85th percentile of `sorted` (ascending): the
/// smallest value at or below which at least 50 % (85 %) of the values lie.
pub(crate) fn percentiles(sorted: &[i64]) -> Option<(i64, i64)> {
    let n = sorted.len();
    // The rank ceil(p * n / 100), in whole numbers; at least 1 when n > 0.
    let at = |p: usize| sorted.get((p * n).div_ceil(100).max(1) - 1).copied();
    Some((at(50)?, at(85)?))
}

/// The cards in each column of the set now, archived ones left out (`$1` the
/// set): `(id, wip)`.
pub(crate) const WIP: &str = "SELECT c.id, COUNT(k.id) AS wip FROM columns c \
     LEFT JOIN cards k ON k.column_id = c.id AND k.archived_at IS NULL \
     WHERE c.set_id = $1 GROUP BY c.id";

/// Up to 20 cards of the set (`$1`) outside its done column and not archived, oldest first, with
/// their age and time in their column at `$2` (now).
pub(crate) fn aging_statement(backend: Backend) -> String {
    let now = backend.epoch_seconds_sql("$2");
    format!(
        "SELECT k.id, k.title, c.name, {now} - {} AS age, {now} - {} AS in_column \
         FROM cards k JOIN columns c ON c.id = k.column_id \
         LEFT JOIN history h ON h.card_id = k.id AND h.seq = k.history_seq \
         WHERE c.set_id = $1 AND c.done = 0 AND k.archived_at IS NULL ORDER BY k.created_at, k.id LIMIT 20",
        backend.epoch_seconds_sql("k.created_at"),
        backend.epoch_seconds_sql("COALESCE(h.moved_at, k.created_at)"),
    )
}

#[cfg(test)]
mod tests {
    use super::percentiles;

    #[test]
    fn nearest_rank() {
        assert_eq!(percentiles(&[]), None);
        assert_eq!(percentiles(&[7]), Some((7, 7)));
        // Of two, the median is the shorter.
        assert_eq!(percentiles(&[1, 2]), Some((1, 2)));
        let v: Vec<i64> = (1..=20).collect();
        // 50 % of 20 is rank 10; 85 % of 20 is rank 17.
        assert_eq!(percentiles(&v), Some((10, 17)));
        let v: Vec<i64> = (1..=7).collect();
        // ceil(3.5) = 4; ceil(5.95) = 6.
        assert_eq!(percentiles(&v), Some((4, 6)));
        assert_eq!(percentiles(&[5, 5, 5, 9]), Some((5, 9)));
    }
}
