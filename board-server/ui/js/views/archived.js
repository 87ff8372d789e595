// A workspace's archived cards (§19), newest first, with "Restore".
import { get, post, query } from "../api.js";
import { h, fill, uid, announce } from "../h.js";
import { T } from "../text.js";
import { cardPath } from "../router.js";
import { frame, workspaceOf } from "./frame.js";
import { attempt, timeEl } from "./parts.js";

/** `/w/<tenant>/archived`. */
export async function archivedPage(root, route, session) {
	const main = frame(root, session, route);
	const ws = workspaceOf(session.me, route);
	if (!ws) {
		fill(main, h("h1", {}, T.archived), h("p", { class: "note" }, T.noAccess));
		return {};
	}
	const heading = h("h1", { id: uid("h"), tabindex: "-1" }, T.archivedTitle(ws.name));
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
	const list = h("ul", { class: "archived-list", "aria-labelledby": heading.id });
	const empty = h("p", { class: "hint", hidden: true }, T.noArchived);
	const more = h("button", { hidden: true, on: { click: () => page(cursor) } }, T.more);
	const canRestore = ws.role !== "VIEWER";
	const projectName = (id) => ws.projects.find((p) => p.id === id)?.name;
	let cursor = null;

	const item = (card) => {
		const restore = canRestore && h("button", { "aria-label": T.restoreCard(card.title), on: { click: async () => {
			if (!(await attempt(alert, restore, () => post(`/api/cards/${encodeURIComponent(card.id)}/restore`)))) return;
			const next = li.nextElementSibling || li.previousElementSibling;
			li.remove();
			announce(T.restored(card.title));
			empty.hidden = list.children.length > 0 || Boolean(cursor);
			(next ? next.querySelector("button") || next.querySelector("a") : heading).focus();
		} } }, T.restore);
		const project = card.projectId && projectName(card.projectId);
		const li = h("li", { class: "archived-card" },
			h("div", { class: "stack" },
				h("a", { href: cardPath(ws.id, card.id), class: "title" }, card.title),
				h("span", { class: "hint" }, T.archivedLabel, " ", timeEl(card.archivedAt), project ? ` · ${project}` : null)),
			restore);
		return li;
	};

	// `after`: the cursor (null: the first page).
	async function page(after) {
		const added = list.children.length;
		await attempt(alert, more, async () => {
			const res = await get(`/api/cards${query({ tenant: ws.id, archived: "true", cursor: after })}`);
			cursor = res.nextCursor;
			const batch = document.createDocumentFragment();
			for (const card of res.cards) batch.appendChild(item(card));
			list.appendChild(batch);
		});
		more.hidden = !cursor;
		empty.hidden = list.children.length > 0;
		const first = after && list.children[added];
		first?.querySelector("a").focus();
	}

	fill(main, h("div", { class: "archived-page" }, heading, alert, list, empty, more));
	await page(null);
	return {};
}
