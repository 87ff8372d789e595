// The frame of a signed-in page: switchers, pages, search, account.
import { get, del, query } from "../api.js";
import { h, fill, uid } from "../h.js";
import { T } from "../text.js";
import { go, boardPath, cardPath } from "../router.js";

/** The workspace of `route` in `me`, or null when the account does not reach it. */
export function workspaceOf(me, route) {
	return me.workspaces.find((w) => w.id === route.tenant) || null;
}

/** Builds the frame into `root` and returns its `<main>`. */
export function frame(root, session, route) {
	const me = session.me;
	const ws = workspaceOf(me, route);
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
			ws.role === "ADMIN" ? link("settings", T.settings, `${boardPath(ws.id)}/settings`) : null));
		parts.push(searchBox(ws.id, route.project));
	}
	parts.push(h("div", { class: "who" },
		h("a", { href: "/account", "aria-current": route.page === "account" ? "page" : null, "aria-label": T.accountMenu(me.name) }, me.name),
		h("button", { on: { click: signOut } }, T.signOut)));
	const page = { board: T.board, settings: T.settings, archived: T.archived, account: T.account }[route.page];
	document.title = [page, ws?.name, T.app].filter(Boolean).join(" · ");
	const main = h("main", { id: "main", class: `page ${route.page}` });
	fill(root, h("header", { class: "top" }, parts), main);
	return main;
}

async function signOut() {
	try {
		await del("/api/session");
	} finally {
		localStorage.removeItem("board.last");
		location.assign("/");
	}
}

function searchBox(tenant, project) {
	const input = h("input", { type: "search", id: uid("q"), name: "q", autocomplete: "off", maxlength: 200 });
	const results = h("div", { class: "search-results", hidden: true });
	const close = () => { results.hidden = true; };
	let asked = 0;
	const form = h("form", { role: "search", class: "search", on: {
		submit: async (e) => {
			e.preventDefault();
			const q = input.value.trim();
			if (!q) return close();
			const mine = ++asked;
			try {
				const found = await get(`/api/search${query({ tenant, project, q })}`);
				if (mine !== asked) return;
				show(found.results);
			} catch (err) {
				fill(results, h("p", { role: "alert" }, err.message));
				results.hidden = false;
			}
		},
		keydown: (e) => { if (e.key === "Escape") { close(); input.focus(); } },
	} }, h("label", { for: input.id, class: "visually-hidden" }, T.search), input,
	h("button", { type: "submit" }, T.search), results);
	function show(list) {
		const heading = h("h2", { id: uid("results") }, list.length ? T.searchResults(list.length) : T.noResults);
		fill(results, heading, h("ul", { "aria-labelledby": heading.id }, list.map((r) => h("li", {},
			h("a", { href: cardPath(tenant, r.card.id), on: { click: close } }, r.card.title),
			r.matches.filter((m) => m.field !== "title").map((m) => h("p", { class: "snippet" }, m.snippet))))));
		results.hidden = false;
	}
	document.addEventListener("click", (e) => { if (!form.contains(e.target)) close(); });
	return form;
}
