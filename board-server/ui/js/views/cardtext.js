// The card dialog's title and description, saved with If-Match (§22).
import { api, patch } from "../api.js";
import { h, fill, sanitized, uid, announce, primaryButton } from "../h.js";
import { T } from "../text.js";
import { refusal } from "./parts.js";
import { mentions } from "./mention.js";

// Saves on the tag the edit started from: null, or {theirs, etag} on a clash.
async function saveText(shared, edit, field, value) {
	for (let i = 0; i < 3; i += 1) {
		try {
			// One request: the answer is the card as its read now answers it, with
			// that read's tag, so a save made by someone after ours meets a 412.
			const read = `${shared.url}?html=true`;
			const saved = await shared.save(() => patch(read, { [field]: value }, { ifMatch: edit.etag, withEtag: true, cacheAs: read }));
			edit.base = value;
			edit.etag = saved.etag;
			return null;
		} catch (e) {
			if (e.status !== 412) throw e;
		}
		const fresh = await shared.refresh();
		if (fresh.card[field] === value) return null;
		if (fresh.card[field] !== edit.base) return { theirs: fresh.card[field], etag: fresh.etag };
		edit.etag = fresh.etag;
	}
	throw new Error(T.keepsChanging);
}

/** The newer text next to the user's, and the choice between them. */
export function conflictBox(what, theirs, mine, keep, useTheirs) {
	const said = h("p", { class: "alert", role: "alert", tabindex: "-1", id: uid("conflict") }, T.conflict(what));
	const version = (title, text) => h("div", { class: "version" }, h("h4", {}, title), h("p", { class: "version-text" }, text || T.emptyText));
	const box = h("div", { class: "conflict", role: "group", "aria-labelledby": said.id }, said,
		h("div", { class: "versions" }, version(T.theirVersion, theirs), version(T.yourVersion, mine)),
		h("div", { class: "row" },
			h("button", { on: { click: keep } }, T.keepMine),
			h("button", { on: { click: useTheirs } }, T.useTheirs)));
	setTimeout(() => said.focus());
	return box;
}

function editor(shared, field, parts) {
	const { control, hide, save, what, saved, value } = parts;
	const note = h("p", { class: "note small", hidden: true }, T.changedElsewhere);
	const conflict = h("div");
	let edit = null; // {base, etag} while editing
	const ed = {
		note, conflict,
		unchanged: () => edit && value() === edit.base,
		start() {
			edit = { base: shared.state.card[field], etag: shared.state.etag };
			control.value = edit.base;
			for (const el of hide) el.hidden = true;
			ed.form.hidden = false;
			control.focus();
		},
		stop() {
			edit = null;
			fill(conflict);
			note.hidden = ed.form.hidden = true;
			for (const el of hide) el.hidden = false;
			save.hidden = false;
			hide[1].focus();
		},
		async run(v, after) {
			try {
				const clash = await saveText(shared, edit, field, v);
				if (!clash) return announce(saved), after ? after() : ed.stop();
				note.hidden = save.hidden = true;
				fill(conflict, conflictBox(what, clash.theirs, v,
					() => { Object.assign(edit, { base: clash.theirs, etag: clash.etag }); fill(conflict); save.hidden = false; ed.run(value(), after); },
					() => { ed.stop(); announce(T.keptTheirs); }));
			} catch (e) {
				shared.fail(e);
			}
		},
		submit(e) {
			e.preventDefault();
			if (!edit) return;
			if (ed.unchanged() && !conflict.firstChild) return ed.stop();
			ed.run(value());
		},
		drawNote(card) {
			if (edit) note.hidden = card[field] === edit.base || Boolean(conflict.firstChild);
		},
	};
	return ed;
}

const editButton = (shared, text, fn) => h("button", { hidden: !shared.ctx.canWrite, on: { click: () => fn() } }, text);

/** The title: the dialog's heading, "Edit title", and its editor (Enter saves). */
export function titlePart(shared, heading) {
	const input = h("input", { required: true, maxlength: 100, autocomplete: "off", id: uid("title") });
	const save = primaryButton(T.saveTitle);
	const button = editButton(shared, T.editTitle, () => { ed.start(); input.select(); });
	const ed = editor(shared, "title", { control: input, hide: [heading, button], save, what: T.theTitle, saved: T.titleSaved, value: () => input.value.trim() });
	ed.form = h("form", { class: "title-edit", hidden: true, novalidate: true, on: { submit: ed.submit } },
		h("label", { class: "visually-hidden", for: input.id }, T.cardTitle),
		h("div", { class: "row" }, input, save, h("button", { on: { click: ed.stop } }, T.cancel)),
		ed.note, ed.conflict);
	input.addEventListener("keydown", (e) => {
		if (e.key === "Escape") { e.preventDefault(); ed.stop(); }
	});
	return {
		el: h("div", { class: "card-title" }, heading, ed.form, button),
		draw(card) {
			heading.textContent = card.title;
			ed.drawNote(card);
		},
	};
}

/** The description: the server's HTML, "Edit description", Write / Preview. */
export function descriptionPart(shared) {
	const heading = h("h3", { id: uid("desc") }, T.description);
	const shown = h("div", { class: "markdown" });
	const text = h("textarea", { rows: 10, maxlength: 100000, spellcheck: "true", id: uid("d") });
	const write = h("button", { "aria-pressed": "true", on: { click: () => tab(false) } }, T.write);
	const preview = h("button", { "aria-pressed": "false", on: { click: () => tab(true) } }, T.preview);
	const pane = h("div", { class: "preview", hidden: true });
	const save = primaryButton(T.save);
	const button = editButton(shared, T.editDescription, () => { ed.start(); tab(false); });
	const ed = editor(shared, "description", { control: text, hide: [shown, button], save, what: T.theDescription, saved: T.descriptionSaved, value: () => text.value });
	ed.form = h("form", { class: "stack", hidden: true, on: { submit: ed.submit } },
		h("div", { class: "row tabs" }, write, preview),
		h("div", { class: "write" }, h("label", { class: "visually-hidden", for: text.id }, T.description), mentions(text, () => shared.ctx.members.values())),
		pane, ed.note, ed.conflict,
		h("div", { class: "row" }, save, h("button", { on: { click: ed.stop } }, T.cancel)));
	function tab(previewing) {
		write.setAttribute("aria-pressed", String(!previewing));
		preview.setAttribute("aria-pressed", String(previewing));
		text.closest(".write").hidden = previewing;
		pane.hidden = !previewing;
		if (!previewing) return;
		const card = shared.state.card;
		if (text.value === card.description) return show(card.descriptionHtml);
		// Unsaved text: the server renders it as its save will show (api.md §24).
		const typed = text.value;
		fill(pane, h("p", { class: "hint" }, T.rendering));
		api("POST", "/api/markdown", { text: typed }).then(
			(r) => { if (!pane.hidden && text.value === typed) show(r.html, T.previewUnsaved); },
			(e) => { if (!pane.hidden) fill(pane, h("p", { class: "hint" }, refusal(e))); });
	}
	function show(html, note) {
		const body = html ? sanitized(h("div", { class: "markdown" }), html) : h("p", { class: "hint" }, T.nothingToPreview);
		fill(pane, ...(note ? [h("p", { class: "hint" }, note), body] : [body]));
	}
	text.addEventListener("keydown", (e) => {
		if (e.key !== "Escape") return;
		e.preventDefault();
		if (ed.unchanged()) ed.stop();
	});
	return {
		el: h("section", { class: "card-description", "aria-labelledby": heading.id },
			h("div", { class: "row head" }, heading, button), shown, ed.form),
		draw(card) {
			if (card.descriptionHtml) sanitized(fill(shown), card.descriptionHtml);
			else fill(shown, h("p", { class: "hint" }, T.noDescription));
			ed.drawNote(card);
		},
	};
}
