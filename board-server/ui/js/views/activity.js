// A workspace's activity (§29): every change, newest first, live.
import { h, fill, uid } from "../h.js";
import { T } from "../text.js";
import { follow } from "../events.js";
import { frame, workspaceOf } from "./frame.js";
import { activityList } from "./history.js";

/** `/w/<tenant>/activity`. */
export async function activityPage(root, route, session, life) {
	const main = frame(root, session, route);
	const ws = workspaceOf(session.me, route);
	if (!ws) return fill(main, h("h1", {}, T.activity), h("p", { class: "note" }, T.noAccess)), {};
	const heading = h("h1", { id: uid("h") }, T.activityOf(ws.name));
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
	const fail = (e) => { alert.textContent = e.message; alert.hidden = false; };
	const feed = activityList("/api/activity", { tenant: ws.id }, heading, fail);
	fill(main, h("div", { class: "activity-page" }, heading, alert, feed.el));
	let timer = null;
	const later = (read) => { clearTimeout(timer); timer = setTimeout(() => read().catch(fail), 150); };
	const stop = follow(ws.id, 0, { onEvent: () => later(feed.news), onReset: () => later(feed.load),
		onOpen: () => {}, onDown: () => {} });
	const destroy = () => { stop(); clearTimeout(timer); };
	life?.on(destroy);
	await feed.load().catch(fail);
	return { destroy };
}
