// My cards (api.md §29): the cards assigned to the signed-in account, in every
// workspace it reaches, grouped by due date in the browser's time zone.
import { get, query } from "../api.js";
import { h, fill, uid } from "../h.js";
import { T } from "../text.js";
import { cardPath } from "../router.js";
import { dueIs } from "../filter.js";
import { frame } from "./frame.js";
import { attempt, timeEl } from "./parts.js";

const GROUPS = ["overdue", "today", "week", "later", "none"];
const PAGES = 20; // 200 cards each

/** The group of a card due at `iso`: overdue, today, week, later or none. */
export const groupOf = (iso, now = Date.now()) => ["overdue", "today", "week", "none"].find((g) => dueIs(g, iso, now)) || "later";

/** `/me`. */
export async function minePage(root, route, session) {
	const main = frame(root, session, route);
	const heading = h("h1", { id: uid("h"), tabindex: "-1" }, T.myCards);
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
	const body = h("div", { class: "mine" }, h("p", { class: "hint" }, T.loading));
	fill(main, h("div", { class: "mine-page" }, heading, alert, body));
	await attempt(alert, null, async () => {
		const [columns, cards] = await Promise.all([get("/api/columns"), readAll()]);
		const column = new Map(columns.map((c) => [c.id, c]));
		const workspace = new Map(session.me.workspaces.map((w) => [w.id, w]));
		const now = Date.now();
		const groups = new Map(GROUPS.map((g) => [g, []]));
		for (const card of cards) groups.get(groupOf(card.dueAt, now)).push(card);
		const item = (card) => h("li", { class: "mine-card" },
			h("a", { href: cardPath(card.tenantId, card.id), class: "title" }, card.title),
			h("span", { class: "hint" }, [workspace.get(card.tenantId)?.name, column.get(card.columnId)?.name].filter(Boolean).join(" · "),
				card.dueAt ? [" · ", timeEl(card.dueAt)] : null));
		const sections = [...groups].filter(([, list]) => list.length).map(([g, list]) => {
			const title = h("h2", { id: uid("g") }, `${T.dues[g] || T.later} (${list.length})`);
			return h("section", { "aria-labelledby": title.id }, title, h("ul", { "aria-labelledby": title.id }, list.map(item)));
		});
		fill(body, sections.length ? sections : h("p", { class: "hint" }, T.noCardsForMe));
	});
	return {};
}

// Every page of `GET /api/cards?assignee=me` (across workspaces), up to PAGES.
async function readAll() {
	const all = [];
	let cursor = null;
	for (let i = 0; i < PAGES; i++) {
		const page = await get(`/api/cards${query({ assignee: "me", limit: 200, cursor })}`);
		all.push(...page.cards);
		cursor = page.nextCursor;
		if (!cursor) break;
	}
	return all;
}
