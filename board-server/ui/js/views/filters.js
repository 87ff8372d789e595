// The board's "Filter" (api.md §29): labels, assignees, due, title words.
import { h, fill, field, inline, uid } from "../h.js";
import { T } from "../text.js";
import { boardPath } from "../router.js";
import { filtering } from "../filter.js";

/** The filter bar of a board: `change(filter)` on every choice; `f` is the filter now. */
export function filterBar(ctx, f, change) {
	const panel = h("div", { class: "filters", id: uid("filters"), hidden: true });
	const toggle = h("button", { "aria-expanded": "false", "aria-controls": panel.id, on: { click: () => show(panel.hidden) } }, T.filter);
	const clear = h("button", { hidden: true, on: { click: () => {
		set({ q: "", label: [], assignee: [], due: [] });
		toggle.focus();
	} } }, T.clearFilters);
	const status = h("span", { class: "hint" });
	const words = h("input", { type: "search", autocomplete: "off", maxlength: 200, value: f.q,
		on: { input: () => set({ ...f, q: words.value.trim() }) } });
	const set = (next) => {
		f = next;
		if (words.value.trim() !== f.q) words.value = f.q;
		for (const box of panel.querySelectorAll("input[type=checkbox]")) box.checked = f[box.name].includes(box.value);
		clear.hidden = !filtering(f);
		change(f);
	};
	const box = (kind, value, text, cls) => {
		const input = h("input", { type: "checkbox", name: kind, value, checked: f[kind].includes(value), on: { change: () => {
			const rest = f[kind].filter((v) => v !== value);
			set({ ...f, [kind]: input.checked ? [...rest, value] : rest });
		} } });
		const el = inline(input, text);
		if (cls) el.classList.add(...cls.split(" "));
		return el;
	};
	const group = (legend, items) => h("fieldset", {}, h("legend", {}, legend), items);
	// Labels and members change live: the choices are built again.
	const build = () => {
		const labels = [...ctx.labels.values()];
		const others = [...ctx.members.values()].filter((m) => m.accountId !== ctx.me.id);
		fill(panel,
			group(T.labels, labels.length
				? labels.map((l) => box("label", l.id, l.name, `accent-${l.accent} swatch`))
				: h("p", { class: "hint" }, T.noLabels, " ", h("a", { href: `${boardPath(ctx.ws.id)}/labels` }, T.manageLabels))),
			group(T.assignees, [box("assignee", "me", T.me), box("assignee", "none", T.noOne),
				others.map((m) => box("assignee", m.accountId, m.name))]),
			group(T.dueDate, Object.entries(T.dues).map(([value, text]) => box("due", value, text))),
			field(T.titleWords, words));
	};
	function show(open) {
		panel.hidden = !open;
		toggle.setAttribute("aria-expanded", String(open));
		if (open) panel.querySelector("input")?.focus();
	}
	panel.addEventListener("keydown", (e) => {
		if (e.key === "Escape") { e.stopPropagation(); show(false); toggle.focus(); }
	});
	build();
	clear.hidden = !filtering(f);
	return {
		el: [h("div", { class: "row filter-row" }, toggle, clear, status), panel],
		build,
		open: () => show(true),
		/** Says how many cards show: "Showing 3 of 10 cards" while a filter is on. */
		counts(shown, total) {
			status.textContent = filtering(f) ? T.showing(shown, total) : "";
		},
	};
}
