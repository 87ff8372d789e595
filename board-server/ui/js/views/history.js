// The card dialog's activity (§29), and the rows the workspace's activity page shares.
import { get, query } from "../api.js";
import { h, fill, uid } from "../h.js";
import { T } from "../text.js";

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const STEPS = [[60, "second"], [60, "minute"], [24, "hour"], [7, "day"], [4.35, "week"], [12, "month"], [Infinity, "year"]];

/** "3 minutes ago", "yesterday", "in 2 days". */
export function ago(iso, now = Date.now()) {
	let amount = (new Date(iso).getTime() - now) / 1000;
	for (const [size, unit] of STEPS) {
		if (Math.abs(amount) < size) return relative.format(Math.round(amount), unit);
		amount /= size;
	}
	return "";
}

/** Account `id`'s name on this board ("a former member"; null: the command line). */
export const nameOf = (ctx, id) => (id ? ctx.members.get(id)?.name ?? T.formerMember : T.cli);

/** Activity read from `path` with `params` (§29), newest first, page by page; a row says who, what, when. */
export function activityList(path, params, heading, fail) {
	const list = h("ol", { class: "history", "aria-labelledby": heading.id });
	const more = h("button", { hidden: true, on: { click: () => page(cursor).catch(fail) } }, T.more);
	let cursor = null;
	let reading = 0;
	const row = (a) => h("li", { data: { seq: a.seq } }, h("b", {}, a.actor ? a.actor.name : T.cli), ` ${a.summary} `,
		h("time", { class: "hint", datetime: a.at, title: full.format(new Date(a.at)) }, ago(a.at)));
	async function page(after) {
		const n = ++reading;
		const res = await get(path + query({ ...params, cursor: after }));
		if (n !== reading) return;
		cursor = res.nextCursor;
		const rows = res.items.map(row);
		if (after) list.append(...rows);
		else fill(list, rows.length ? rows : h("li", { class: "hint" }, T.noActivity));
		more.hidden = !cursor;
	}
	// A live change: the new items go on top, and the pages "Show more"
	// loaded stay (nothing shown, or more news than a page: read it again).
	async function news() {
		const n = ++reading;
		const res = await get(path + query(params));
		if (n !== reading) return;
		const newest = Number(list.querySelector("li[data-seq]")?.dataset.seq);
		const known = res.items.findIndex((a) => a.seq <= newest);
		if (known < 0) return page(null);
		list.prepend(...res.items.slice(0, known).map(row));
	}
	return { el: [list, more], load: () => page(null), news };
}

/** The card dialog's activity: every change to the card and its parts, live. */
export function historyPart(shared) {
	const heading = h("h3", { id: uid("hist") }, T.activity);
	const feed = activityList(`${shared.url}/activity`, {}, heading, shared.fail);
	return {
		el: h("section", { class: "card-history", "aria-labelledby": heading.id }, heading, feed.el),
		load: feed.load,
		onEvent(e) {
			// A deletion's subject is only its id: any may be this card's.
			if (e.type.endsWith(".deleted") || JSON.stringify(e.subject).includes(shared.id)) feed.news().catch(shared.fail);
		},
	};
}
