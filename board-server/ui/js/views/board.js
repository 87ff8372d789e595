// The board page (§25): columns, cards, moves and live events.
import { get, patch, post, query } from "../api.js";
import { h, fill, uid, announce, primaryButton } from "../h.js";
import { T } from "../text.js";
import { BoardStore, placement } from "../store.js";
import { follow } from "../events.js";
import { draggableCards, draggableColumns, dragging, afterDrag } from "../dnd.js";
import { boardPath } from "../router.js";
import { frame, workspaceOf } from "./frame.js";
import { tile } from "./tile.js";
import { moveDialog } from "./move.js";
import { addColumnDialog, columnDialog } from "./columns.js";
import { openCard } from "./card.js";
import { refreshMe } from "../session.js";
import { toast } from "./parts.js";
import { readFilter, filterQuery, filtering, matcher, fullIndex } from "../filter.js";
import { filterBar } from "./filters.js";
import { boardKeys } from "./keys.js";

/** `/w/<tenant>` (and `/p/<project>`, `/c/<card>`). */
export async function boardPage(root, route, session, life) {
	const ws = workspaceOf(session.me, route);
	const main = frame(root, session, route);
	if (!ws) {
		fill(main, h("h1", {}, T.notFound), h("p", {}, h("a", { href: "/" }, T.backToBoard)));
		return null;
	}
	localStorage.setItem("board.last", boardPath(ws.id, route.project));
	const store = new BoardStore();
	const ctx = {
		ws, route, store, me: session.me, labels: new Map(), members: new Map(), settings: null,
		canWrite: ws.role !== "VIEWER", manage: false,
	};
	const heading = h("h1", { class: "visually-hidden" }, `${T.board}: ${ws.name}`);
	const note = h("p", { class: "note", hidden: true }, T.managementOff);
	const scroller = h("div", { class: "columns" });
	const failed = h("div", { class: "stack", hidden: true });
	// The filter (§29): in the URL's query; `shows(id)` says whether a card is drawn.
	let filter = readFilter(location.search);
	let shows = () => true;
	const filterNow = (f) => {
		filter = f;
		const match = filtering(f) && matcher(f, ctx.me.id);
		shows = match ? (id) => match(store.cards.get(id)) : () => true;
	};
	filterNow(filter);
	const keepInUrl = () => history.replaceState(null, "", location.pathname + filterQuery(filter));
	const bar = filterBar(ctx, filter, (f) => {
		performance.mark("filter-start");
		filterNow(f);
		for (const view of views.values()) view.limit = PAGE;
		keepInUrl();
		renderAll();
		performance.mark("filter-end");
		performance.measure("filter", "filter-start", "filter-end");
	});
	ctx.openFilter = bar.open;
	fill(main, h("div", { class: "board-bar" }, heading, bar.el, note), failed, scroller);
	const views = new Map();
	const tiles = new Map();
	// A long column draws its first cards, then more as its end comes near
	// (or on "Show more"): 5,000 cards stay quick to show, filter and drag.
	const PAGE = 50;
	const nearEnd = new IntersectionObserver((seen) => {
		for (const e of seen) if (e.isIntersecting && !e.target.hidden) e.target.click();
	}, { rootMargin: "600px" });

	// Puts `els` in `list` in order, moving only what is out of place.
	const place = (list, els) => {
		if (!list.firstChild) return list.append(...els);
		const keep = new Set(els);
		for (const child of [...list.children]) if (!keep.has(child)) child.remove();
		let at = list.firstChild;
		for (const el of els) {
			if (el === at) at = at.nextSibling;
			else list.insertBefore(el, at);
		}
	};
	const tileOf = (id, column) => {
		const card = store.cards.get(id);
		const held = tiles.get(id);
		if (held?.card === card && held.done === column.done) return held.el;
		const el = tile(card, ctx, column.done);
		tiles.set(id, { card, el, done: column.done });
		return el;
	};
	const renderHead = (column, view, shown) => {
		const n = column.cardIds.length;
		const over = column.wipLimit !== null && column.wipLimit !== undefined && n > column.wipLimit;
		const on = filtering(filter);
		const name = h("h2", { id: uid("col") }, column.name);
		// The actions button stays in place across redraws: it keeps focus, and a
		// dialog it opened gives focus back to it.
		view.info ||= view.head.appendChild(h("span", { class: "head-info" }));
		if (ctx.manage) view.actions ||= view.head.appendChild(h("button", { class: "link", data: { action: "column" } }, "⋯"));
		else view.actions = view.actions?.remove();
		view.actions?.setAttribute("aria-label", T.columnActions(column.name));
		fill(view.info, name,
			h("span", { class: over ? "count over" : "count" },
				h("span", { "aria-hidden": "true" }, on ? T.countShown(shown, n, column.wipLimit) : T.count(n, column.wipLimit)),
				h("span", { class: "visually-hidden" }, on ? T.countShownLabel(shown, n, column.wipLimit, over) : T.countLabel(n, column.wipLimit, over))),
			column.done ? h("span", { class: "done-mark" }, T.doneMark) : null);
		view.section.setAttribute("aria-labelledby", name.id);
		view.section.className = `column accent-${column.accent}`;
		view.list.setAttribute("aria-label", T.cardsIn(column.name));
	};
	const renderColumn = (column) => {
		let view = views.get(column.id);
		if (!view) {
			const head = h("header");
			const list = h("ul", { class: "cards" });
			const add = ctx.canWrite ? h("button", { data: { action: "add" } }, `+ ${T.addCard}`) : null;
			const more = h("button", { class: "more-cards", data: { action: "more" }, hidden: true });
			const section = h("section", { data: { id: column.id } }, head, list, h("div", { class: "column-foot" }, more, add));
			view = { section, list, head, more, limit: PAGE };
			views.set(column.id, view);
			nearEnd.observe(more);
		}
		const ids = column.cardIds.filter(shows);
		renderHead(column, view, ids.length);
		const drawn = ids.length > view.limit ? ids.slice(0, view.limit) : ids;
		const tilesDrawn = drawn.map((id) => tileOf(id, column));
		// Part of a long column drawn: each card says its place in the whole
		// ("3 of 120"), where a screen reader would count only those drawn.
		const partial = drawn.length < ids.length;
		tilesDrawn.forEach((el, i) => {
			if (partial) {
				el.setAttribute("aria-setsize", ids.length);
				el.setAttribute("aria-posinset", i + 1);
			} else if (el.hasAttribute("aria-setsize")) {
				el.removeAttribute("aria-setsize");
				el.removeAttribute("aria-posinset");
			}
		});
		place(view.list, tilesDrawn);
		const rest = ids.length - drawn.length;
		view.more.hidden = !rest;
		if (rest) view.more.textContent = T.moreCards(Math.min(rest, PAGE), rest);
		return view.section;
	};
	const adder = h("div", { class: "add-column" }, h("button", { on: { click: () => addColumnDialog(ctx, reload) } }, `+ ${T.addColumn}`));
	const renderAll = () => {
		const keep = new Set(store.columns.map((c) => c.id));
		for (const id of views.keys()) if (!keep.has(id)) views.delete(id);
		const sections = store.columns.map(renderColumn);
		// Moved only where out of place: a section put back would lose its focus.
		place(scroller, ctx.manage ? [...sections, adder] : sections);
		note.hidden = ctx.manage || !ctx.canWrite;
		countShown();
	};
	const countShown = () => {
		let shown = 0;
		let total = 0;
		for (const column of store.columns) {
			total += column.cardIds.length;
			shown += filtering(filter) ? column.cardIds.filter(shows).length : column.cardIds.length;
		}
		bar.counts(shown, total);
	};
	// A tile drawn again keeps the keyboard focus it held.
	const cardOf = (el) => el?.closest?.("li.card");
	const heldFocus = () => {
		const a = document.activeElement;
		const li = cardOf(a);
		return li ? { id: li.dataset.id, selector: a.matches("button.move") ? "button.move" : "a.title" } : null;
	};
	const giveFocus = (held) => {
		if (!held || cardOf(document.activeElement)) return;
		const el = scroller.querySelector(`li.card[data-id="${CSS.escape(held.id)}"] ${held.selector}`);
		el?.focus();
	};
	// Nothing is drawn again under a drag: the whole board is, once it ends.
	let held = null; // the columns to draw again after the drag, or "all"
	const hold = (columns) => {
		if (held === "all" || columns === "all") held = "all";
		else held = new Set([...(held || []), ...columns]);
	};
	const unhook = afterDrag(() => {
		const change = held;
		held = null;
		if (change === "all") renderAll();
		else if (change) render({ columns: change, cards: new Set() });
	});
	store.subscribe((change) => {
		if (dragging()) {
			hold(change.columns === "all" ? "all" : [...change.columns, ...[...change.cards].map((id) => {
				const where = store.where(id);
				return where?.column.id;
			}).filter(Boolean)]);
			return;
		}
		const focus = heldFocus();
		render(change);
		giveFocus(focus);
	});
	const render = (change) => {
		if (change.columns === "all") return renderAll();
		if (filtering(filter)) countShown();
		for (const id of change.columns) {
			const column = store.column(id);
			if (column) renderColumn(column);
		}
		for (const id of change.cards) {
			const where = store.where(id);
			if (!where || change.columns.has(where.column.id)) continue;
			// A change may make the card match the filter, or stop matching.
			if (filtering(filter)) {
				renderColumn(where.column);
				continue;
			}
			const old = tiles.get(id);
			const el = tileOf(id, where.column);
			if (old && old.el !== el) old.el.replaceWith(el);
		}
	};

	const boardUrl = `/api/board${query({ tenant: ws.id, project: route.project })}`;
	const tenant = query({ tenant: ws.id });
	let loaded = false;
	const queued = [];
	const readLabels = async () => {
		const labels = await get(`/api/labels${tenant}`);
		ctx.labels = new Map(labels.map((l) => [l.id, l]));
	};
	const readMembers = async () => {
		const members = await get(`/api/members${tenant}`);
		ctx.members = new Map(members.map((m) => [m.accountId, m]));
	};
	const readSettings = async () => {
		ctx.settings = await get(`/api/settings${tenant}`);
		ctx.manage = ctx.canWrite && ctx.settings.columnManagement;
	};
	async function reload() {
		store.load(await get(boardUrl));
	}
	async function first() {
		const [board] = await Promise.all([get(boardUrl), readLabels(), readMembers(), readSettings()]);
		bar.build();
		store.load(board);
		// "board": from navigation to the frame after every column was drawn.
		requestAnimationFrame(() => setTimeout(() => {
			performance.mark("board-shown");
			performance.measure("board", { start: 0, end: "board-shown" });
		}, 0));
		loaded = true;
		for (const e of queued.splice(0)) onEvent(e);
	}

	let lastSeq = 0;
	// What the events ask to read again ("board", "labels", "members",
	// "settings", "me"), gathered for 150 ms and read together: a later ask
	// adds to an earlier one, never drops it.
	const asked = new Set();
	let reloadTimer = null;
	const later = (...parts) => {
		for (const part of parts) asked.add(part);
		clearTimeout(reloadTimer);
		reloadTimer = setTimeout(() => readAsked().catch((e) => toast(e.message)), 150);
	};
	const shownOnTiles = () => JSON.stringify([[...ctx.labels.values()], [...ctx.members.values()]]);
	const EVERYTHING = ["labels", "members", "settings", "board"];
	const reads = { labels: readLabels, members: readMembers, settings: readSettings, me: refreshMe };
	async function readAsked() {
		const parts = new Set(asked);
		asked.clear();
		const before = shownOnTiles();
		const [board] = await Promise.all([
			parts.has("board") ? get(boardUrl) : null,
			...[...parts].filter((part) => reads[part]).map((part) => reads[part]()),
		]);
		// Tiles show labels and members: drawn anew only when those changed
		// (a tile replaced under a finger or the focus would end a drag).
		const redraw = shownOnTiles() !== before;
		if (redraw) {
			tiles.clear();
			bar.build();
		}
		if (board) store.load(board);
		else if (redraw || parts.has("settings")) renderAll();
	}
	function onEvent(e) {
		lastSeq = Math.max(lastSeq, e.seq || 0);
		if (!loaded) return queued.push(e);
		dialog?.onEvent(e);
		if (store.apply(e)) return;
		if (e.type.startsWith("label.")) return later("labels");
		if (e.type.startsWith("member.")) return later("members");
		if (e.type.startsWith("project.")) return later("me");
		if (e.type === "settings.updated") return later("settings", "board");
		if (e.type.startsWith("checklist.") && e.subject.cardId && store.cards.has(e.subject.cardId)) {
			return get(`/api/cards/${e.subject.cardId}`).then((card) => store.put(card)).catch(() => {});
		}
		if (e.type.startsWith("relation.") || e.type === "comment.updated") return;
		later("board");
	}
	let stop = () => {};
	let stopped = false;
	const listen = () => {
		stop = follow(ws.id, lastSeq, {
			onEvent,
			// Everything the first load read, read again after a reset and
			// after the first connection: nothing committed between is missed.
			onReset: () => later(...EVERYTHING),
			onOpen: (firstOpen) => { if (firstOpen && loaded) later(...EVERYTHING); },
			onDown: (closed) => {
				if (closed && !stopped) setTimeout(() => { if (!stopped) { stop(); listen(); } }, 3000);
			},
		});
	};
	listen();

	async function moveCard(cardId, columnId, index) {
		const column = store.column(columnId);
		const card = store.cards.get(cardId);
		if (!column || !card) return;
		const others = column.cardIds.filter((id) => id !== cardId);
		const body = { columnId, ...placement(others, index) };
		const undo = store.moveLocal(cardId, columnId, index);
		try {
			const answer = await patch(`/api/cards/${cardId}`, body);
			store.put(answer);
			announce(T.moved(card.title, column.name));
		} catch (e) {
			store.undo(undo);
			toast(T.moveRefused(card.title, e.message));
			announce(T.moveRefused(card.title, e.message));
		}
	}
	async function moveColumn(columnId, index) {
		const ids = store.columns.map((c) => c.id).filter((id) => id !== columnId);
		ids.splice(index, 0, columnId);
		try {
			await patch("/api/columns/order", { columnIds: ids });
		} catch (e) {
			toast(e.message);
		}
		await reload();
	}
	ctx.moveCard = moveCard;
	ctx.moveColumn = moveColumn;
	ctx.reload = reload;
	// A drop's index counts the visible cards only: it lands between its visible neighbours.
	const dropCard = (cardId, columnId, index) => {
		const others = store.column(columnId)?.cardIds.filter((id) => id !== cardId) || [];
		return moveCard(cardId, columnId, fullIndex(others, shows, index));
	};
	if (ctx.canWrite) draggableCards(scroller, scroller, dropCard);
	draggableColumns(scroller, scroller, (id, index) => (ctx.manage ? moveColumn(id, index) : renderAll()));

	scroller.addEventListener("click", (e) => {
		const button = e.target.closest("button[data-action]");
		if (!button) return;
		const section = button.closest("section.column");
		const column = store.column(section.dataset.id);
		if (button.dataset.action === "add") return addCardForm(column, button);
		if (button.dataset.action === "more") {
			const view = views.get(column.id);
			const focused = button === document.activeElement;
			const from = view.list.children.length;
			view.limit += PAGE;
			renderColumn(column);
			// A focused "Show more" that hides (its last page drawn, by a key or by its
			// 600 px watch) would drop the focus to the body: give it to the first new card.
			if (focused && button.hidden) view.list.children[from]?.querySelector("a.title")?.focus();
			return;
		}
		if (button.dataset.action === "column") return columnDialog(ctx, column);
		if (button.dataset.action === "move") {
			const card = store.cards.get(button.closest("li.card").dataset.id);
			return moveDialog(ctx, card);
		}
	});
	const unkey = boardKeys(scroller, ctx, {
		move: (id) => moveDialog(ctx, store.cards.get(id)),
		add: (section) => section.querySelector("button[data-action=add]")?.click(),
		// Draws a long column's next cards; false when it has drawn them all.
		more: (section) => {
			const view = views.get(section.dataset.id);
			if (view.more.hidden) return false;
			view.more.click();
			return true;
		},
	});
	function addCardForm(column, button) {
		const input = h("textarea", { rows: 2, required: true, maxlength: 500 });
		const alert = h("p", { class: "alert", role: "alert", hidden: true });
		const form = h("form", { class: "stack add-card" },
			h("label", { class: "visually-hidden", for: (input.id = uid("title")) }, T.cardTitle), input, alert,
			h("div", { class: "row" }, primaryButton(T.addCard),
				h("button", { on: { click: () => done() } }, T.cancel)));
		const done = () => { form.replaceWith(button); button.focus(); };
		input.addEventListener("keydown", (e) => {
			if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
			if (e.key === "Escape") done();
		});
		form.addEventListener("submit", async (e) => {
			e.preventDefault();
			const title = input.value.trim();
			if (!title) return input.focus();
			try {
				const card = await post("/api/cards", { tenantId: ws.id, projectId: route.project || undefined, columnId: column.id, title });
				store.put(card);
				input.value = "";
				alert.hidden = true;
				input.focus();
			} catch (err) {
				alert.textContent = err.message;
				alert.hidden = false;
			}
		});
		button.replaceWith(form);
		input.focus();
	}

	let dialog = null;
	const destroy = () => {
		stopped = true;
		stop();
		unhook();
		unkey();
		nearEnd.disconnect();
		clearTimeout(reloadTimer);
		dialog?.close();
	};
	life?.on(destroy);
	// A first load that fails stops the stream and offers to try again.
	const open = async () => {
		try {
			await first();
		} catch (e) {
			stopped = true;
			stop();
			queued.length = 0;
			const again = h("button", { on: { click: () => {
				failed.hidden = true;
				stopped = false;
				listen();
				open();
			} } }, T.tryAgain);
			fill(failed, h("p", { class: "alert", role: "alert" }, T.loadFailed(e.message)), h("div", {}, again));
			failed.hidden = false;
			scroller.hidden = true;
			again.focus();
			return;
		}
		scroller.hidden = false;
		if (route.card && !stopped) dialog = openCard(ctx, route.card);
	};
	await open();
	return {
		update(r) {
			if (r.project !== route.project || !loaded) return false;
			dialog?.close();
			dialog = r.card ? openCard(ctx, r.card) : null;
			if (!r.card) keepInUrl(); // back from a card: the filter is still on
			return true;
		},
		destroy,
	};
}
