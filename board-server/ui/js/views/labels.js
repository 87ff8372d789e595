// A workspace's labels (api.md §29): add, rename, colour, reorder, delete.
import { get, post, patch, del, query } from "../api.js";
import { h, fill, field, uid, announce, primaryButton } from "../h.js";
import { T } from "../text.js";
import { follow } from "../events.js";
import { frame, workspaceOf } from "./frame.js";
import { attempt, confirmDialog } from "./parts.js";
import { ACCENTS } from "./columns.js";

const colours = (current, attrs) => h("select", attrs, ACCENTS.map((a) => h("option", { value: a, selected: a === current }, a)));

/** `/w/<tenant>/labels`. */
export async function labelsPage(root, route, session, life) {
	const main = frame(root, session, route);
	const ws = workspaceOf(session.me, route);
	if (!ws) {
		fill(main, h("h1", {}, T.labels), h("p", { class: "note" }, T.noAccess));
		return {};
	}
	const canWrite = ws.role !== "VIEWER";
	const heading = h("h1", { id: uid("h"), tabindex: "-1" }, T.labelsTitle(ws.name));
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
	const list = h("ul", { class: "label-list", "aria-labelledby": heading.id });
	const empty = h("p", { class: "hint", hidden: true }, T.noLabelsYet);
	let labels = [];

	const load = async () => {
		labels = await get(`/api/labels${query({ tenant: ws.id })}`);
		const focused = document.activeElement?.closest?.("li[data-id]");
		const again = focused && { id: focused.dataset.id, name: document.activeElement.dataset.part };
		fill(list, labels.map(row));
		empty.hidden = labels.length > 0;
		if (again) list.querySelector(`li[data-id="${CSS.escape(again.id)}"] [data-part="${again.name}"]`)?.focus();
	};
	const act = async (button, fn, said) => {
		if (!(await attempt(alert, button, fn))) return;
		announce(said);
		await load().catch((e) => attempt(alert, null, () => Promise.reject(e)));
	};
	const url = (l) => `/api/labels/${encodeURIComponent(l.id)}`;

	function row(l, i) {
		const chip = h("span", { class: `chip accent-${l.accent}` }, l.name);
		if (!canWrite) return h("li", { class: "label-row", data: { id: l.id } }, chip);
		const name = h("input", { value: l.name, required: true, maxlength: 100, "aria-label": T.nameOf(l.name), data: { part: "name" } });
		const colour = colours(l.accent, { "aria-label": T.colourOf(l.name), data: { part: "colour" } });
		const save = h("button", { type: "submit", "aria-label": T.saveLabel(l.name), data: { part: "save" } }, T.save);
		const form = h("form", { class: "row", on: { submit: (e) => {
			e.preventDefault();
			act(save, () => patch(url(l), { name: name.value.trim(), color: colour.value }), T.labelSaved(name.value.trim()));
		} } }, chip, name, colour, save);
		const up = i > 0 && h("button", { "aria-label": T.moveLabelUp(l.name), data: { part: "up" }, on: { click: () =>
			act(up, () => patch(url(l), { beforeId: labels[i - 1].id }), T.labelMoved(l.name)) } }, "↑");
		const down = i < labels.length - 1 && h("button", { "aria-label": T.moveLabelDown(l.name), data: { part: "down" }, on: { click: () =>
			act(down, () => patch(url(l), { afterId: labels[i + 1].id }), T.labelMoved(l.name)) } }, "↓");
		const remove = h("button", { class: "danger", "aria-label": T.deleteLabel(l.name), on: { click: async () => {
			if (!(await confirmDialog(T.deleteLabelTitle(l.name), T.deleteLabelText, T.del))) return;
			await act(remove, () => del(url(l)), T.labelDeleted(l.name));
			heading.focus();
		} } }, T.del);
		return h("li", { class: "label-row", data: { id: l.id } }, form, h("div", { class: "row" }, up, down, remove));
	}

	const parts = [heading, alert, list, empty];
	if (canWrite) {
		const name = h("input", { required: true, maxlength: 100, autocomplete: "off" });
		const colour = colours("slate");
		const add = primaryButton(T.addLabel);
		const form = h("form", { class: "row bottom", novalidate: true, on: { submit: async (e) => {
			e.preventDefault();
			const text = name.value.trim();
			await act(add, () => post("/api/labels", { tenantId: ws.id, name: text, color: colour.value }), T.labelAdded(text));
			if (alert.hidden) { name.value = ""; name.focus(); }
		} } }, field(T.labelName, name), field(T.colour, colour), add);
		parts.push(h("h2", {}, T.addLabel), form);
	} else {
		parts.push(h("p", { class: "note" }, T.viewerLabels));
	}
	fill(main, h("div", { class: "labels-page" }, parts));
	// Labels changed elsewhere show here too.
	let timer = null;
	const stop = follow(ws.id, 0, {
		onEvent: (e) => {
			if (!e.type.startsWith("label.")) return;
			clearTimeout(timer);
			timer = setTimeout(() => load().catch(() => {}), 150);
		},
		onReset: () => load().catch(() => {}),
		onOpen: () => {},
		onDown: () => {},
	});
	const destroy = () => { stop(); clearTimeout(timer); };
	life?.on(destroy);
	await load().catch((e) => attempt(alert, null, () => Promise.reject(e)));
	return { destroy };
}
