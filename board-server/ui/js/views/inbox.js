// The top bar's "Notifications" button and its inbox (api.md §26): the unread
// count, kept live; the list, newest first, each item opening its card and
// marking it read; "Mark all as read"; "Show unread only"; "Show more".
import { get, post, query } from "../api.js";
import { h, fill, uid, announce } from "../h.js";
import { T } from "../text.js";
import { cardPath } from "../router.js";
import { inbox } from "../events.js";
import { ago } from "./history.js";
import { refusal } from "./parts.js";

const PAGE = 20;
// The count outlives a page: each frame draws it on its own button.
let unread = 0;
let shown = null; // the bell of the page shown: {live, draw, reload}
let timer = null;

// Reads the count again, once for a burst: after an event, a read, a page.
function recount() {
	clearTimeout(timer);
	timer = setTimeout(async () => {
		try {
			unread = (await get("/api/notifications/count")).unread;
			shown?.draw();
		} catch { /* the count stays as it was; the next event or page reads it again */ }
	}, 100);
}
// Each new notification comes on every stream of the account: the count is read
// again, not counted up, so that one told twice (or replayed) counts once.
inbox.addEventListener("new", () => { recount(); shown?.reload(); });
// A page with no stream of its own reads the count every 30 s.
setInterval(() => { if (!inbox.open && shown?.live()) recount(); }, 30000);

/** The button and its panel, for the frame of `me`'s page. */
export function bell(me) {
	const badge = h("span", { class: "badge" });
	const heading = h("h2", { id: uid("inbox") }, T.notifications);
	const list = h("ul", { class: "inbox-list", "aria-labelledby": heading.id });
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
	const only = h("input", { type: "checkbox", id: uid("unread"), on: { change: () => load() } });
	const more = h("button", { hidden: true, on: { click: () => load(cursor) } }, T.more);
	const all = h("button", { class: "small", on: { click: readAll } }, T.markAllRead);
	const panel = h("section", { class: "inbox", id: uid("inbox-panel"), "aria-labelledby": heading.id, hidden: true },
	h("div", { class: "row" }, heading, all),
	h("div", { class: "row archived-switch" }, only, h("label", { for: only.id }, T.unreadOnly)),
	alert, list, more);
	const button = h("button", { class: "bell", "aria-expanded": "false", "aria-controls": panel.id,
		on: { click: () => (panel.hidden ? open() : close()) } }, T.notifications, " ", badge);
	const workspace = new Map(me.workspaces.map((w) => [w.id, w.name]));
	let cursor = null;
	let asked = 0;

	function draw() {
		badge.textContent = unread;
		badge.hidden = !unread;
		// The name holds the text shown ("Notifications 3"): WCAG's label in name.
		button.setAttribute("aria-label", T.bellName(unread));
	}
	async function load(after) {
		const mine = ++asked;
		try {
			const page = await get(`/api/notifications${query({ unread: only.checked ? "true" : null, limit: PAGE, cursor: after })}`);
			if (mine !== asked) return;
			alert.hidden = true;
			const items = page.items.map(item);
			if (after) {
				list.append(...items);
				items[0]?.firstChild.focus(); // "Show more" may go: the focus goes to what came
			} else fill(list, items.length ? items : h("li", { class: "hint" }, only.checked ? T.noUnread : T.noNotifications));
			cursor = page.nextCursor;
			more.hidden = !cursor;
		} catch (e) {
			alert.textContent = refusal(e);
			alert.hidden = false;
		}
	}
	// A live notification: the new ones go on top, and what is shown stays,
	// the pages "Show more" loaded and the focus with them.
	async function news() {
		const mine = ++asked;
		try {
			const page = await get(`/api/notifications${query({ unread: only.checked ? "true" : null, limit: PAGE })}`);
			if (mine !== asked) return;
			const shownIds = new Set([...list.querySelectorAll("li[data-id]")].map((li) => li.dataset.id));
			const known = page.items.findIndex((n) => shownIds.has(n.id));
			if (known < 0) return load(); // nothing shown, or more new than a page: start again
			list.prepend(...page.items.slice(0, known).map(item));
		} catch (e) {
			alert.textContent = refusal(e);
			alert.hidden = false;
		}
	}
	function item(n) {
		const who = n.actor?.name || T.app; // the command line
		const line = [T.notice[n.kind]?.(who) || n.kind, workspace.get(n.tenantId)].filter(Boolean).join(" · ");
		return h("li", { class: n.readAt ? "notice" : "notice unread", data: { id: n.id } },
			h("a", { href: cardPath(n.tenantId, n.card.id), on: { click: () => { close(); if (!n.readAt) read({ ids: [n.id] }).catch(() => {}); } } }, n.card.title),
			h("span", { class: "hint" }, n.readAt ? null : h("span", { class: "visually-hidden" }, `${T.unread}, `), `${line} · `,
				h("time", { datetime: n.at, title: new Date(n.at).toLocaleString() }, ago(n.at))),
			n.excerpt ? h("p", { class: "snippet" }, n.excerpt) : null);
	}
	async function read(body) {
		try {
			await post("/api/notifications/read", body);
		} finally {
			recount();
		}
	}
	async function readAll() {
		try {
			await read({ all: true });
			announce(T.allRead);
			await load();
		} catch (e) {
			alert.textContent = refusal(e);
			alert.hidden = false;
		}
	}
	function open() {
		panel.hidden = false;
		button.setAttribute("aria-expanded", "true");
		load();
	}
	function close() {
		panel.hidden = true;
		button.setAttribute("aria-expanded", "false");
	}
	// A click elsewhere closes it; so does Escape, giving the focus back.
	const outside = (e) => {
		if (!button.isConnected) {
			document.removeEventListener("click", outside);
			return document.removeEventListener("keydown", outside);
		}
		if (panel.hidden) return;
		if (e.type === "keydown" && e.key === "Escape") { close(); button.focus(); }
		if (e.type === "click" && !panel.contains(e.target) && !button.contains(e.target)) close();
	};
	document.addEventListener("click", outside);
	document.addEventListener("keydown", outside);
	shown = { live: () => button.isConnected, draw, reload: () => { if (!panel.hidden) news(); } };
	draw();
	recount();
	return [button, panel];
}
