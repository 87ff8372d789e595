// A card on the board: title, labels, due date, counts, initials.
import { h } from "../h.js";
import { T } from "../text.js";
import { cardPath } from "../router.js";

const dateFormat = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });

/** Initials of a name: "Ana Lima" → "AL". */
export function initials(name) {
	const words = name.trim().split(/\s+/).filter(Boolean);
	const letters = words.length > 1 ? [words[0], words[words.length - 1]] : [name];
	return letters.map((w) => [...w][0] || "").join("").toUpperCase().slice(0, 2);
}

/** The list item of `card`. */
export function tile(card, ctx, columnDone) {
	const labels = card.labelIds.map((id) => ctx.labels.get(id)).filter(Boolean);
	const foot = [];
	if (card.dueAt) {
		const due = new Date(card.dueAt);
		const over = !columnDone && due.getTime() < Date.now();
		const day = dateFormat.format(due);
		foot.push(h("time", { class: over ? "due overdue" : "due", datetime: card.dueAt }, over ? T.overdue(day) : T.due(day)));
	}
	if (card.checklist?.total) {
		foot.push(h("span", { class: "checks" }, h("span", { "aria-hidden": "true" }, `☑ ${card.checklist.done}/${card.checklist.total}`),
			h("span", { class: "visually-hidden" }, T.checklist(card.checklist))));
	}
	if (card.commentCount) foot.push(counted(COMMENT, card.commentCount, T.comments));
	if (card.attachmentCount) foot.push(counted(CLIP, card.attachmentCount, T.attachments));
	foot.push(h("span", { class: "spacer" }));
	const people = card.assigneeIds.map((id) => ctx.members.get(id)).filter(Boolean);
	if (people.length) {
		foot.push(h("span", { class: "avatars" },
			h("span", { class: "visually-hidden" }, `${T.assignees}: ${people.map((m) => m.name).join(", ")}`),
			people.map((m) => h("span", { class: "avatar", "aria-hidden": "true", title: m.name }, initials(m.name)))));
	}
	if (ctx.canWrite) foot.push(h("button", { class: "move", data: { action: "move" } }, T.move));
	return h("li", { class: "card", data: { id: card.id } },
		labels.length ? h("ul", { class: "labels", "aria-label": T.labels }, labels.map((l) => h("li", { class: `accent-${l.accent}` }, l.name))) : null,
		h("a", { class: "title", href: cardPath(ctx.ws.id, card.id), draggable: "false" }, card.title),
		h("div", { class: "card-foot" }, foot));
}

// Icons: SVG paths (24×24) in the text's colour.
const COMMENT = "M4 4h16v12H8l-4 4z";
const CLIP = "M16 7v9a4 4 0 0 1-8 0V6a2.5 2.5 0 0 1 5 0v9a1 1 0 0 1-2 0V7";
const SVG = "http://www.w3.org/2000/svg";

function icon(d) {
	const svg = document.createElementNS(SVG, "svg");
	svg.setAttribute("viewBox", "0 0 24 24");
	svg.setAttribute("class", "icon");
	svg.setAttribute("aria-hidden", "true");
	const path = document.createElementNS(SVG, "path");
	path.setAttribute("d", d);
	svg.appendChild(path);
	return svg;
}

function counted(d, n, words) {
	return h("span", { class: "counted" }, icon(d), h("span", { "aria-hidden": "true" }, String(n)), h("span", { class: "visually-hidden" }, words(n)));
}
