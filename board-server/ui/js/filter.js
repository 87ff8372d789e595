// The board's filter (api.md §29): read from and written to the page's URL query.

const KINDS = ["label", "assignee", "due"];

/** The filter of a URL query: {label: [], assignee: [], due: [], q}. */
export function readFilter(search) {
	const params = new URLSearchParams(search);
	const f = { q: (params.get("q") || "").trim() };
	for (const kind of KINDS) f[kind] = [...new Set(params.getAll(kind).filter(Boolean))];
	return f;
}

/** Whether any choice is made. */
export const filtering = (f) => Boolean(f.q) || KINDS.some((k) => f[k].length > 0);

/** The URL query of a filter (`""` when none): `?label=L&assignee=me&due=overdue&q=…`. */
export function filterQuery(f) {
	const params = new URLSearchParams();
	for (const kind of KINDS) for (const v of f[kind]) params.append(kind, v);
	if (f.q) params.set("q", f.q);
	const s = params.toString();
	return s ? `?${s}` : "";
}

/** Whether a card due at `iso` (or null) is in due choice `d`, days in the browser's zone. */
export function dueIs(d, iso, now = Date.now()) {
	if (d === "none") return !iso;
	if (!iso) return false;
	const at = new Date(iso).getTime();
	if (d === "overdue") return at < now;
	if (at < now) return false;
	if (d === "today") {
		const end = new Date(now);
		end.setHours(24, 0, 0, 0);
		return at < end.getTime();
	}
	return d === "week" && at < now + 7 * 864e5;
}

/** `card => bool` for filter `f`: kinds combine with AND, choices within a kind with OR. */
export function matcher(f, meId, now = Date.now()) {
	const words = f.q.toLowerCase().split(/\s+/).filter(Boolean);
	return (card) => {
		if (f.label.length && !card.labelIds.some((id) => f.label.includes(id))) return false;
		if (f.assignee.length && !f.assignee.some((a) => (a === "none"
			? card.assigneeIds.length === 0
			: card.assigneeIds.includes(a === "me" ? meId : a)))) return false;
		if (f.due.length && !f.due.some((d) => dueIs(d, card.dueAt, now))) return false;
		const title = card.title.toLowerCase();
		return words.every((w) => title.includes(w));
	};
}

/**
 * The index among all of a column's `others` of a drop at `index` among the
 * visible ones: directly above the visible card below, else directly below
 * the visible card above, so the card lands between its visible neighbours.
 */
export function fullIndex(others, shows, index) {
	const seen = others.filter(shows);
	if (index < seen.length) return others.indexOf(seen[index]);
	return seen.length ? others.indexOf(seen[seen.length - 1]) + 1 : others.length;
}
