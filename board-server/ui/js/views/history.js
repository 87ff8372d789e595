// The card dialog's history (§6, §17): each move, by whom, when.
import { get } from "../api.js";
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
export const nameOf = (ctx, id) => (id ? ctx.members.get(id)?.name ?? T.formerMember : T.byCli);

/** The card's moves, newest first. */
export function historyPart(shared) {
	const { ctx } = shared;
	const heading = h("h3", { id: uid("hist") }, T.history);
	const list = h("ol", { class: "history", "aria-labelledby": heading.id });
	const who = (actorId) => (actorId ? T.by(nameOf(ctx, actorId)) : T.byCli);
	let reading = 0;
	async function load() {
		const n = ++reading;
		const entries = await get(`${shared.url}/history`);
		if (n !== reading) return;
		fill(list, entries.length ? [...entries].reverse().map((e) => h("li", {},
			h("span", {}, e.fromName ? T.movedFromTo(e.fromName, e.toName) : T.createdIn(e.toName)), " ",
			h("span", { class: "hint" }, who(e.actorId), ", ",
				h("time", { datetime: e.movedAt, title: full.format(new Date(e.movedAt)) }, ago(e.movedAt))))) : h("li", { class: "hint" }, T.noHistory));
	}
	return {
		el: h("section", { class: "card-history", "aria-labelledby": heading.id }, heading, list),
		load,
		onEvent(e) {
			if ((e.type === "card.moved" || e.type === "card.restored") && e.subject?.id === shared.id) load().catch(shared.fail);
		},
	};
}
