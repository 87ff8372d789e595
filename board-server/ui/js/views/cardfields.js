// The card dialog's due date, labels and assignees (§24).
import { api, get, patch, query } from "../api.js";
import { h, fill, uid } from "../h.js";
import { T } from "../text.js";

const pad = (n) => String(n).padStart(2, "0");

function localDay(iso) {
	if (!iso) return "";
	const d = new Date(iso);
	return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function endOfDay(day) {
	const [y, m, d] = day.split("-").map(Number);
	return new Date(y, m - 1, d, 23, 59, 59, 999).toISOString();
}

function checkGroup(legend, emptyText, toggle, disabled) {
	const list = h("div", { class: "checks" });
	const el = h("fieldset", { class: "card-checks" }, h("legend", {}, legend), list);
	const boxes = new Map();
	// A box just changed keeps its state until its answer arrives.
	const sending = new Map();
	let shape = "";
	return {
		el,
		draw(items, chosen) {
			const next = JSON.stringify(items.map((i) => [i.id, i.name, i.accent]));
			if (next !== shape) {
				shape = next;
				boxes.clear();
				fill(list, items.length ? null : h("p", { class: "hint" }, emptyText), items.map((item) => {
					const box = h("input", { type: "checkbox", disabled, on: { change: () => {
						const n = (sending.get(item.id) || 0) + 1;
						sending.set(item.id, n);
						Promise.resolve(toggle(item.id, box.checked)).finally(() => {
							if (sending.get(item.id) === n) sending.delete(item.id);
						});
					} } });
					boxes.set(item.id, box);
					return h("label", { class: "chip-check" }, box,
						h("span", { class: item.accent ? `chip accent-${item.accent}` : "chip" }, item.name));
				}));
			}
			for (const [id, box] of boxes) if (!sending.has(id)) box.checked = chosen.includes(id);
		},
	};
}

/** Due date, labels and assignees; each change is sent at once. */
export function fieldsPart(shared) {
	const { ctx, url } = shared;
	const toggle = (kind) => (id, on) => shared.change(() => api(on ? "PUT" : "DELETE", `${url}/${kind}/${encodeURIComponent(id)}`));

	const due = h("input", { type: "date", id: uid("due"), disabled: !ctx.canWrite });
	const clear = h("button", { hidden: !ctx.canWrite, on: { click: () => { due.value = ""; sendDue(); } } }, T.clearDue);
	let timer = null;
	function sendDue() {
		clearTimeout(timer);
		timer = null;
		if (due.value === localDay(shared.state.card.dueAt)) return;
		const dueAt = due.value ? endOfDay(due.value) : null;
		shared.change(() => patch(url, { dueAt }));
	}
	due.addEventListener("change", () => { clearTimeout(timer); timer = setTimeout(sendDue, 600); });
	due.addEventListener("blur", () => { if (timer) sendDue(); });

	let labels = ctx.labels;
	let members = ctx.members;
	const labelsLink = h("a", { href: `/w/${encodeURIComponent(ctx.ws.id)}/labels` }, T.manageLabels);
	const labelGroup = checkGroup(T.labels, [T.noLabels, " ", labelsLink], toggle("labels"), !ctx.canWrite);
	const peopleGroup = checkGroup(T.assignees, T.noMembers, toggle("assignees"), !ctx.canWrite);
	const draw = (card) => {
		if (document.activeElement !== due && !timer) due.value = localDay(card.dueAt);
		labelGroup.draw([...labels.values()], card.labelIds);
		peopleGroup.draw([...members.values()].map((m) => ({ id: m.accountId, name: m.name })), card.assigneeIds);
	};
	let listTimer = null;
	const readLists = async () => {
		const tenant = query({ tenant: ctx.ws.id });
		const [l, m] = await Promise.all([get(`/api/labels${tenant}`), get(`/api/members${tenant}`)]);
		labels = new Map(l.map((x) => [x.id, x]));
		members = new Map(m.map((x) => [x.accountId, x]));
		if (shared.state.card) draw(shared.state.card);
	};

	return {
		el: h("section", { class: "card-fields", "aria-label": T.details },
			h("div", { class: "field" }, h("label", { for: due.id }, T.dueDate), h("div", { class: "row" }, due, clear)),
			labelGroup.el, peopleGroup.el),
		draw,
		onEvent(e) {
			if (!e.type.startsWith("label.") && !e.type.startsWith("member.")) return;
			clearTimeout(listTimer);
			listTimer = setTimeout(() => readLists().catch(shared.fail), 200);
		},
		destroy() {
			clearTimeout(timer);
			clearTimeout(listTimer);
		},
	};
}
