// The History API and the paths of api.md §25.

/** What a path names: {page, tenant, project, card}. */
export function parse(pathname) {
	const fixed = { "/": "home", "/invite": "invite", "/reset": "reset", "/verify": "verify", "/account": "account", "/me": "me" };
	if (fixed[pathname]) return { page: fixed[pathname] };
	const flow = pathname.match(/^\/w\/([^/]+)(?:\/p\/([^/]+))?\/flow\/?$/);
	if (flow) return { page: "flow", tenant: decodeURIComponent(flow[1]), project: flow[2] && decodeURIComponent(flow[2]) };
	const m = pathname.match(/^\/w\/([^/]+)(?:\/(?:(p|c)\/([^/]+)|(settings|archived|labels|activity)))?\/?$/);
	if (!m) return { page: "missing" };
	const tenant = decodeURIComponent(m[1]);
	if (m[2] === "p") return { page: "board", tenant, project: decodeURIComponent(m[3]) };
	if (m[2] === "c") return { page: "board", tenant, card: decodeURIComponent(m[3]) };
	if (m[4]) return { page: m[4], tenant };
	return { page: "board", tenant };
}

/** The path of a board: `/w/T` or `/w/T/p/P`. */
export function boardPath(tenant, project) {
	const t = `/w/${encodeURIComponent(tenant)}`;
	return project ? `${t}/p/${encodeURIComponent(project)}` : t;
}

/** The path of a card's dialog. */
export function cardPath(tenant, card) {
	return `/w/${encodeURIComponent(tenant)}/c/${encodeURIComponent(card)}`;
}

let render = () => {};

/** Starts routing: `fn(route)` runs now and on every navigation. */
export function start(fn) {
	render = fn;
	window.addEventListener("popstate", () => render(parse(location.pathname)));
	document.addEventListener("click", (e) => {
		const a = e.target.closest?.("a[href]");
		if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
		const url = new URL(a.href, location.href);
		if (url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
		e.preventDefault();
		go(url.pathname + url.search);
	});
	render(parse(location.pathname));
}

/** Navigates to `path` (a new history entry unless `replace`). */
export function go(path, replace = false) {
	if (path !== location.pathname + location.search) {
		history[replace ? "replaceState" : "pushState"](null, "", path);
	}
	render(parse(location.pathname));
}
