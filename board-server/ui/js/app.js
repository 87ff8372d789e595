// Boots the UI: who is signed in, then the page the path names.
import { get, whenSignedOut, forget } from "./api.js";
import { start, go, boardPath } from "./router.js";
import { h, fill } from "./h.js";
import { T } from "./text.js";
import { signInPage, codePage } from "./views/signin.js";
import { boardPage } from "./views/board.js";
import { settingsPage } from "./views/settings.js";
import { accountPage } from "./views/account.js";
import { archivedPage } from "./views/archived.js";

/** Who is signed in (`GET /api/me`), or null. */
export const session = { me: undefined };

/** Reads `GET /api/me` again (after a change of name, workspaces, projects). */
export async function refreshMe() {
	try {
		session.me = await get("/api/me", { quiet401: true });
	} catch (e) {
		if (e.status !== 401) throw e;
		session.me = null;
	}
	return session.me;
}

/** Forgets the session and shows the sign-in page. */
export function signedOut() {
	session.me = null;
	forget();
	show(null);
	go(location.pathname, true);
}

const root = document.getElementById("app");
let current = null;
const notice = (title, text) => fill(root, h("main", { class: "page narrow" }, h("h1", {}, title), text));

function show(view, route) {
	current?.view?.destroy?.();
	current = view ? { view, route } : null;
}

const pages = { board: boardPage, settings: settingsPage, account: accountPage, archived: archivedPage };

async function route(r) {
	if (session.me === undefined) await refreshMe();
	if (r.page === "invite" || r.page === "reset") {
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
	const same = current?.route.page === r.page && current.route.tenant === r.tenant;
	if (same && current.view.update && current.view.update(r)) {
		current.route = r;
		return;
	}
	show(null);
	const view = await page(root, r, session);
	show(view, r);
}

whenSignedOut(() => signedOut());
start((r) => {
	route(r).catch((e) => notice(T.app, h("p", { role: "alert" }, e.message)));
});
