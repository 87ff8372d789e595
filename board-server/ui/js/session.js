// Who is signed in: read by the pages, refreshed after a change to the account.
import { get } from "./api.js";

/** Who is signed in (`GET /api/me`), or null; undefined before the first read. */
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

/**
 * The life of one page: what it made registers how to undo it (`on`), and
 * leaving the page (`end`) undoes all of it, whether the page finished
 * loading or not. `ended` tells a page still loading that it was left.
 */
export function lifetime() {
	const undo = [];
	return {
		ended: false,
		on(fn) {
			if (this.ended) fn();
			else undo.push(fn);
		},
		end() {
			this.ended = true;
			for (const fn of undo.splice(0).reverse()) {
				try { fn(); } catch { /* one failed cleanup stops no other */ }
			}
		},
	};
}
