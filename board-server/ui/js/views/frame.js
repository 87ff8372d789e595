// The frame of a signed-in page: switchers, pages, search, account.
import { get, del, query } from "../api.js";
import { h, fill, uid } from "../h.js";
import { T } from "../text.js";
import { go, boardPath, cardPath } from "../router.js";
import { bell } from "./inbox.js";

/** The workspace of `route` in `me`, or null when the account does not reach it. */
export function workspaceOf(me, route) {
	return me.workspaces.find((w) => w.id === route.tenant) || null;
}

/** The workspace last shown on a board, or the first one: the frame of a
 * page of no workspace (the account, My cards) still leads back to a board
 * and searches it. */
function recent(me) {
	const last = (localStorage.getItem("board.last") || "").split("/")[2];
	return me.workspaces.find((w) => w.id === last) || me.workspaces[0] || null;
}

/** Builds the frame into `root` and returns its `<main>`. */
export function frame(root, session, route) {
	const me = session.me;
	const own = workspaceOf(me, route);
	const ws = own || (route.tenant ? null : recent(me));
	const pick = (label, path, options) => {
		const select = h("select", { id: uid("pick"), on: { change: () => go(path(select.value)) } }, options);
		return [h("label", { for: select.id, class: "visually-hidden" }, label), select];
	};
	const parts = [h("a", { class: "brand", href: "/" }, T.app), pick(T.workspace, boardPath,
		me.workspaces.map((w) => h("option", { value: w.id, selected: ws && w.id === ws.id }, w.name)))];
	if (ws && route.page === "board" && ws.projects.length) {
		parts.push(pick(T.project, (p) => boardPath(ws.id, p), [h("option", { value: "" }, T.wholeWorkspace),
			ws.projects.map((p) => h("option", { value: p.id, selected: p.id === route.project }, p.name))]));
	}
	if (ws) {
		const link = (page, text, href) => h("a", { href, "aria-current": route.page === page ? "page" : null }, text);
		parts.push(h("nav", { "aria-label": T.workspace },
			link("board", T.board, boardPath(ws.id, route.project)),
			link("archived", T.archived, `${boardPath(ws.id)}/archived`),
			link("labels", T.labels, `${boardPath(ws.id)}/labels`),
			link("flow", T.flow, `${boardPath(ws.id, route.project)}/flow`),
			link("activity", T.activity, `${boardPath(ws.id)}/activity`),
			ws.role === "ADMIN" ? link("settings", T.settings, `${boardPath(ws.id)}/settings`) : null));
		parts.push(searchBox(ws.id, route.project));
	}
	parts.push(h("div", { class: "who" }, bell(me),
		h("a", { href: "/me", "aria-current": route.page === "me" ? "page" : null }, T.myCards),
		h("a", { href: "/account", "aria-current": route.page === "account" ? "page" : null, "aria-label": T.accountMenu(me.name) }, me.name),
		h("button", { on: { click: signOut } }, T.signOut)));
	const page = { board: T.board, settings: T.settings, archived: T.archived, labels: T.labels, me: T.myCards, flow: T.flow, activity: T.activity, account: T.account }[route.page];
	document.title = [page, own?.name, T.app].filter(Boolean).join(" · ");
	const main = h("main", { id: "main", class: `page ${route.page}` });
	fill(root, h("header", { class: "top" }, parts), main);
	return main;
}

async function signOut() {
	let out = {};
	try {
		out = await del("/api/session");
	} finally {
		localStorage.removeItem("board.last");
		// A session made through single sign-on ends at the provider too (§27).
		location.assign(out?.logoutUrl || "/");
	}
}

function searchBox(tenant, project) {
	const input = h("input", { type: "search", id: uid("q"), name: "q", autocomplete: "off", maxlength: 200 });
	const results = h("div", { class: "search-results", hidden: true });
	const close = () => { results.hidden = true; };
	// Results as one types (§29): after a pause, the newest answer winning.
	const archived = h("input", { type: "checkbox", id: uid("arch"), on: { change: () => form.requestSubmit() } });
	let asked = 0;
	let pause = null;
	input.addEventListener("input", () => {
		clearTimeout(pause);
		pause = setTimeout(() => form.isConnected && form.requestSubmit(), 300);
	});
	const form = h("form", { role: "search", class: "search", on: {
		submit: async (e) => {
			e.preventDefault();
			clearTimeout(pause);
			const q = input.value.trim();
			const mine = ++asked;
			if (!q) return close();
			try {
				const found = await get(`/api/search${query({ tenant, project, q, archived: archived.checked ? "true" : null })}`);
				if (mine !== asked) return;
				show(found.results);
			} catch (err) {
				fill(results, h("p", { role: "alert" }, err.message));
				results.hidden = false;
			}
		},
		keydown: (e) => { if (e.key === "Escape") { close(); input.focus(); } },
	} }, h("label", { for: input.id, class: "visually-hidden" }, T.search), input,
	h("button", { type: "submit" }, T.search),
	h("span", { class: "row archived-switch" }, archived, h("label", { for: archived.id }, T.includeArchived)), results);
	function show(list) {
		const heading = h("h2", { id: uid("results") }, list.length ? T.searchResults(list.length) : T.noResults);
		fill(results, heading, h("ul", { "aria-labelledby": heading.id }, list.map((r) => h("li", {},
			h("a", { href: cardPath(tenant, r.card.id), on: { click: close } }, r.card.title),
			r.card.archivedAt ? h("span", { class: "hint" }, ` · ${T.archivedLabel}`) : null,
			r.matches.filter((m) => m.field !== "title").map((m) => h("p", { class: "snippet" }, m.snippet))))));
		results.hidden = false;
	}
	const outside = (e) => {
		if (!form.isConnected) return document.removeEventListener("click", outside);
		if (!form.contains(e.target)) close();
	};
	document.addEventListener("click", outside);
	return form;
}
