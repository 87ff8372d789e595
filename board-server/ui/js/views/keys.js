// The board's keyboard shortcuts (api.md §29); never while typing.
import { h, uid, openDialog } from "../h.js";
import { T } from "../text.js";

const typing = (el) => el?.closest?.("input, textarea, select, [contenteditable]:not([contenteditable=false])");

/** The "Keyboard shortcuts" dialog. */
function helpDialog() {
	const title = h("h2", { id: uid("keys") }, T.shortcuts);
	openDialog(h("dialog", { "aria-labelledby": title.id }, h("form", { method: "dialog" }, title,
		h("dl", { class: "keys" }, Object.entries(T.keys).map(([key, text]) => [h("dt", {}, h("kbd", {}, key)), h("dd", {}, text)])),
		h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", autofocus: true }, T.close)))));
}

/** Listens for the board's shortcuts in `scroller`'s page; returns what stops it. */
export function boardKeys(scroller, ctx, { move, add, more }) {
	const cards = (section) => [...section.querySelectorAll("li.card a.title")];
	const columns = () => [...scroller.querySelectorAll("section.column")];
	const arrow = (key, at) => {
		const section = at?.closest("section.column");
		const all = columns();
		if (!section) return cards(all.find((s) => cards(s).length) || all[0] || scroller)[0];
		const here = cards(section);
		const i = here.indexOf(at.closest("li.card")?.querySelector("a.title"));
		if (key === "ArrowUp") return here[Math.max(i - 1, 0)];
		// Past the last card drawn of a long column: draw the next ones.
		if (key === "ArrowDown" && i === here.length - 1 && more(section)) return cards(section)[i + 1];
		if (key === "ArrowDown") return here[Math.min(i + 1, here.length - 1)] || here[0];
		const step = key === "ArrowLeft" ? -1 : 1;
		for (let c = all.indexOf(section) + step; c >= 0 && c < all.length; c += step) {
			const there = cards(all[c]);
			if (there.length) return there[Math.min(Math.max(i, 0), there.length - 1)];
		}
		return null;
	};
	const onKey = (e) => {
		if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || document.querySelector("dialog[open]")) return;
		const at = scroller.contains(document.activeElement) ? document.activeElement : null;
		const card = at?.closest("li.card");
		let done = true;
		if (e.key === "?") helpDialog();
		else if (e.key === "/") document.querySelector("form[role=search] input")?.focus();
		else if (e.key === "f") ctx.openFilter();
		else if (e.key.startsWith("Arrow")) {
			const next = arrow(e.key, at);
			if (next) next.focus();
			else done = false;
		} else if (e.key === "m" && card && ctx.canWrite) move(card.dataset.id);
		else if (e.key === "n" && ctx.canWrite) {
			const section = at?.closest("section.column") || columns()[0];
			if (section) add(section);
		} else done = false;
		if (done) e.preventDefault();
	};
	document.addEventListener("keydown", onKey);
	return () => document.removeEventListener("keydown", onKey);
}
