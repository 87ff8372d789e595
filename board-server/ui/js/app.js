// Boots the UI: who is signed in, then the page the path names.
import { whenSignedOut, forget } from "./api.js";
import { session, refreshMe, lifetime } from "./session.js";
import { start, go, boardPath } from "./router.js";
import { h, fill } from "./h.js";
import { T } from "./text.js";
import { signInPage, codePage } from "./views/signin.js";
import { boardPage } from "./views/board.js";
import { settingsPage } from "./views/settings.js";
import { accountPage } from "./views/account.js";
import { archivedPage } from "./views/archived.js";
import { labelsPage } from "./views/labels.js";
import { minePage } from "./views/mine.js";
import { flowPage } from "./views/flow.js";
import { activityPage } from "./views/activity.js";

/** Forgets the session and shows the sign-in page. */
function signedOut() {
	session.me = null;
	forget();
	show(null);
	go(location.pathname, true);
}

const root = document.getElementById("app");
// The page shown: its route, its lifetime and, once loaded, its view.
let current = null;
let navigation = 0;
const notice = (title, text) => fill(root, h("main", { class: "page narrow" }, h("h1", {}, title), text));

// Leaves the current page (destroying all it made), then starts `route`'s.
function show(route) {
	current?.life.end();
	current = route ? { route, life: lifetime(), view: null } : null;
	return current;
}

const pages = { board: boardPage, settings: settingsPage, account: accountPage, archived: archivedPage, labels: labelsPage, me: minePage, flow: flowPage, activity: activityPage };

async function route(r) {
	const mine = ++navigation;
	if (session.me === undefined) await refreshMe();
	if (mine !== navigation) return; // a newer navigation started meanwhile
	if (r.page === "invite" || r.page === "reset" || r.page === "verify") {
		show(null);
		codePage(root, r.page, async () => {
			await refreshMe();
			go("/", true);
		}, session.me);
		return;
	}
	if (!session.me) {
		show(null);
		signInPage(root, async () => {
			await refreshMe();
			go(location.pathname, true);
		});
		return;
	}
	if (r.page === "home") {
		// A refused link (single sign-on) comes back as `/?sso=CODE`: the
		// account page, where it was asked for, says why.
		const sso = new URLSearchParams(location.search).get("sso");
		if (sso) return go(`/account?sso=${encodeURIComponent(sso)}`, true);
		const last = localStorage.getItem("board.last");
		const reachable = (p) => session.me.workspaces.some((w) => p.startsWith(`/w/${encodeURIComponent(w.id)}`));
		if (last && reachable(last)) return go(last, true);
		const first = session.me.workspaces[0];
		if (first) return go(boardPath(first.id), true);
		show(null);
		return notice(T.app, h("p", {}, T.noWorkspace));
	}
	const page = pages[r.page];
	if (!page) {
		show(null);
		return notice(T.notFound, h("p", {}, h("a", { href: "/" }, T.backToBoard)));
	}
	// The same page of the same board follows the route itself (a card opened).
	const same = current?.view && current.route.page === r.page && current.route.tenant === r.tenant;
	if (same && current.view.update && current.view.update(r)) {
		current.route = r;
		return;
	}
	const shown = show(r);
	const view = await page(root, r, session, shown.life);
	// Left while loading (a newer navigation): what it made goes at once.
	shown.life.on(() => view?.destroy?.());
	if (!shown.life.ended) shown.view = view || {};
}

whenSignedOut(() => signedOut());
start((r) => {
	const mine = navigation + 1;
	route(r).catch((e) => { if (mine === navigation) notice(T.app, h("p", { role: "alert" }, e.message)); });
});
