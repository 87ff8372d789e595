// The card dialog (§25). Decisions: docs/decisions.md.
import { get, post, del } from "../api.js";
import { h, uid, openDialog, announce } from "../h.js";
import { T } from "../text.js";
import { go, boardPath } from "../router.js";
import { confirmDialog } from "./parts.js";
import { titlePart, descriptionPart } from "./cardtext.js";
import { fieldsPart } from "./cardfields.js";
import { checklistPart } from "./checklist.js";
import { historyPart } from "./history.js";
import { commentsPart } from "./comments.js";
import { attachmentsPart } from "./attachments.js";
import { linksPart } from "./links.js";
import { watchPart } from "./watch.js";

const REFRESHING = new Set(["card.updated", "card.moved", "card.archived", "card.restored"]);

/** Opens card `id` over the board; closing it goes back to the board's path. */
export function openCard(ctx, id) {
	performance.mark("card-open");
	const url = `/api/cards/${encodeURIComponent(id)}`;
	const heading = h("h2", { id: uid("card") }, T.loading);
	const alert = h("p", { class: "alert", role: "alert", hidden: true });
	const where = h("p", { class: "hint" });
	const archivedNote = h("p", { class: "note", hidden: true }, T.cardIsArchived);
	const state = { card: null, etag: null };
	let ended = false;
	let closing = false;
	let returnFocus = null;
	let reading = 0;
	let drawn = 0;
	let shown = false;
	let deleting = false;
	let timer = null;
	const shared = {
		id, url, ctx, state,
		fail(e) {
			alert.textContent = e.message;
			alert.hidden = false;
		},
		/** Reads the card again and draws it; resolves to {card, etag} as read. */
		async refresh() {
			const n = ++reading;
			const { data, etag } = await get(`${url}?html=true`, { withEtag: true });
			// A read drawn is never replaced by one sent before it.
			if (n > drawn && !ended) {
				drawn = n;
				state.card = data;
				state.etag = etag;
				draw();
			}
			return { card: data, etag };
		},
		/** Draws a save's answer ({data, etag}: the card as its read now answers it). */
		took(saved) {
			// Newer than any read sent before it.
			drawn = ++reading;
			state.card = saved.data;
			state.etag = saved.etag;
			ctx.store.put(saved.data);
			if (!ended) draw();
		},
		/** Whether the dialog shows `subject` already (an event of its own save). */
		holds(subject) {
			const card = state.card;
			return Boolean(card) && Object.keys(subject).every((k) => JSON.stringify(subject[k]) === JSON.stringify(card[k]));
		},
		/** The save in flight, if any: its own event waits until it is drawn. */
		saving: null,
		/** Sends a save that answers {data, etag} and draws it (`took`). */
		async save(send) {
			let done;
			shared.saving = new Promise((resolve) => { done = resolve; });
			try {
				const saved = await send();
				shared.took(saved);
				return saved;
			} finally {
				shared.saving = null;
				done();
			}
		},
		/** Sends a change that answers the card; the board and the dialog follow. */
		async change(send) {
			alert.hidden = true;
			try {
				ctx.store.put(await send());
			} catch (e) {
				shared.fail(e);
			}
			await shared.refresh().catch(shared.fail);
		},
	};

	const title = titlePart(shared, heading);
	const description = descriptionPart(shared);
	const fields = fieldsPart(shared);
	const checklist = checklistPart(shared);
	const history = historyPart(shared);
	const comments = commentsPart(shared);
	const attachments = attachmentsPart(shared);
	const links = linksPart(shared);
	const watch = watchPart(shared);
	const parts = [checklist, history, fields, comments, attachments, links];

	const archiveButton = h("button", { on: { click: archive } }, T.archiveCard);
	const restoreButton = h("button", { hidden: true, on: { click: restore } }, T.restoreThisCard);
	const deleteButton = h("button", { class: "danger", on: { click: remove } }, T.deleteCard);
	const layout = h("div", { class: "card-layout", hidden: true },
		h("div", { class: "card-top" }, description.el, fields.el),
		checklist.el, attachments.el, links.el, comments.el, history.el,
		ctx.canWrite ? h("div", { class: "actions card-actions" }, archiveButton, restoreButton, deleteButton) : null);
	const dialog = h("dialog", { class: "card-dialog", "aria-labelledby": heading.id },
		h("header", { class: "card-head" }, h("div", { class: "stack" }, title.el, where, watch.el),
			h("form", { method: "dialog", class: "close" }, h("button", { type: "submit", value: "close" }, T.close))),
		alert, archivedNote, layout);

	function draw() {
		const card = state.card;
		title.draw(card);
		description.draw(card);
		fields.draw(card);
		watch.draw(card);
		const column = ctx.store.column(card.columnId);
		where.textContent = column ? `${T.column}: ${column.name}` : "";
		archivedNote.hidden = !card.archivedAt;
		archiveButton.hidden = Boolean(card.archivedAt);
		restoreButton.hidden = !card.archivedAt;
		layout.hidden = false;
		if (!shown) {
			shown = true;
			performance.mark("card-shown");
			performance.measure("card", "card-open", "card-shown");
		}
	}

	const neighbour = () => {
		const li = document.querySelector(`li.card[data-id="${CSS.escape(id)}"]`);
		const other = li && (li.nextElementSibling || li.previousElementSibling);
		if (other?.matches("li.card")) return other.querySelector("a.title");
		const column = li?.closest("section");
		return column ? column.querySelector(".column-foot button") : null;
	};
	const leave = (text, back = neighbour()) => {
		returnFocus = back;
		ended = true;
		announce(text);
		if (dialog.open) dialog.close();
	};
	const cardTitle = () => (state.card ? state.card.title : "");

	async function archive() {
		if (!(await confirmDialog(T.archiveTitle(cardTitle()), T.archiveText, T.archiveCard))) return;
		const back = neighbour();
		try {
			const card = await post(`${url}/archive`);
			leave(T.cardArchived(card.title), back);
			ctx.store.put(card);
		} catch (e) {
			shared.fail(e);
		}
	}
	async function restore() {
		await shared.change(() => post(`${url}/restore`));
		if (!state.card.archivedAt) {
			announce(T.restored(state.card.title));
			archiveButton.focus();
		}
	}
	async function remove() {
		if (!(await confirmDialog(T.deleteTitle(cardTitle()), T.deleteText, T.deleteCard))) return;
		const back = neighbour();
		deleting = true; // our own card.deleted event is not "someone else"
		try {
			await del(url);
			leave(T.cardDeleted(cardTitle()), back);
			ctx.store.remove(id);
		} catch (e) {
			deleting = false;
			shared.fail(e);
		}
	}

	openDialog(dialog, () => {
		ended = true;
		clearTimeout(timer);
		fields.destroy();
		if (closing) return;
		if (location.pathname.includes("/c/")) go(boardPath(ctx.ws.id, ctx.route.project));
		const active = document.activeElement;
		if (active && active !== document.body) return;
		const link = returnFocus || document.querySelector(`li.card[data-id="${CSS.escape(id)}"] a.title`);
		if (link?.isConnected) link.focus();
	});

	shared.refresh().catch((e) => {
		heading.textContent = T.notFound;
		shared.fail(e);
	});
	for (const part of [checklist, history, comments, attachments, links]) part.load().catch(shared.fail);

	const later = () => {
		clearTimeout(timer);
		timer = setTimeout(() => shared.refresh().catch(shared.fail), 50);
	};
	return {
		close() {
			closing = true;
			ended = true;
			if (dialog.open) dialog.close();
		},
		onEvent(e) {
			if (ended) return;
			const s = e.subject || {};
			if (e.type === "card.deleted" && s.id === id && !deleting) return leave(T.deletedElsewhere(cardTitle()));
			if (REFRESHING.has(e.type) && s.id === id) {
				// Our own save's echo changes nothing: no read.
				const check = () => { if (!ended && !shared.holds(s)) later(); };
				if (shared.saving) shared.saving.finally(check);
				else check();
			}
			if (e.type.startsWith("checklist.") && s.cardId === id) later();
			for (const part of parts) {
				try { part.onEvent?.(e); } catch (err) { console.error(err); }
			}
		},
	};
}
