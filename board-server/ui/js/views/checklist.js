// The card dialog's checklist (§24).
import { get, post, patch, del } from "../api.js";
import { h, fill, uid, announce } from "../h.js";
import { T } from "../text.js";

/** The items in order: check, move up or down, remove, add. */
export function checklistPart(shared) {
	const { ctx } = shared;
	const path = `${shared.url}/checklist`;
	const itemPath = (id) => `/api/checklist/${encodeURIComponent(id)}`;
	const heading = h("h3", { id: uid("check") }, T.checklistTitle);
	const progress = h("p", { class: "hint progress" });
	const list = h("ul", { class: "checklist", "aria-labelledby": heading.id });
	const input = h("input", { maxlength: 1000, autocomplete: "off", id: uid("new"), placeholder: T.newItemHint });
	const form = ctx.canWrite ? h("form", { class: "row add-item", novalidate: true },
		h("label", { class: "visually-hidden", for: input.id }, T.newItem), input,
		h("button", { type: "submit" }, T.addItem)) : null;
	let items = [];
	let reading = 0;

	const held = () => {
		const a = document.activeElement;
		const li = a && list.contains(a) ? a.closest("li") : null;
		return li ? { id: li.dataset.id, action: a.dataset.action, index: [...list.children].indexOf(li) } : null;
	};
	const giveBack = (was) => {
		if (!was || (document.activeElement && list.contains(document.activeElement))) return;
		const li = [...list.children].find((el) => el.dataset.id === was.id);
		if (!li) {
			const near = list.children[Math.min(was.index, list.children.length - 1)];
			return (near ? near.querySelector("input") : input).focus();
		}
		const order = [was.action, was.action === "up" ? "down" : "up", "check"];
		for (const action of order) {
			const el = li.querySelector(`[data-action="${action}"]`);
			if (el && !el.disabled) return el.focus();
		}
	};

	const row = (item, i) => {
		const box = h("input", { type: "checkbox", id: uid("item"), checked: item.done, disabled: !ctx.canWrite, data: { action: "check" } });
		const text = h("label", { for: box.id, id: uid("text") }, item.text);
		box.addEventListener("change", () => act(() => patch(itemPath(item.id), { done: box.checked })));
		// Glyphs, named in words (and shown so on hover).
		const button = (action, label, glyph, disabled, fn) => h("button", {
			class: "small quiet", disabled, "aria-label": label, title: label, "aria-describedby": text.id,
			data: { action }, on: { click: () => act(fn) },
		}, glyph);
		const last = i === items.length - 1;
		return h("li", { data: { id: item.id }, class: item.done ? "done" : null }, box, text,
			ctx.canWrite ? h("span", { class: "item-actions" },
				button("up", T.moveUp, "↑", i === 0, () => patch(itemPath(item.id), { beforeId: items[i - 1].id })),
				button("down", T.moveDown, "↓", last, () => patch(itemPath(item.id), { afterId: items[i + 1].id })),
				button("remove", T.remove, "×", false, async () => {
					await del(itemPath(item.id));
					announce(T.itemRemoved(item.text));
				})) : null);
	};

	const render = () => {
		const was = held();
		const done = items.filter((i) => i.done).length;
		progress.textContent = items.length ? T.checkProgress(done, items.length) : T.noItems;
		fill(list, items.map(row));
		giveBack(was);
	};

	async function load() {
		const n = ++reading;
		const data = await get(path);
		if (n !== reading) return;
		items = data;
		render();
	}

	async function act(fn) {
		const was = held();
		try {
			await fn();
		} catch (e) {
			shared.fail(e);
		}
		await load().catch(shared.fail);
		giveBack(was);
	}

	if (form) {
		form.addEventListener("submit", async (e) => {
			e.preventDefault();
			const text = input.value.trim();
			if (!text) return input.focus();
			try {
				await post(path, { text });
				input.value = "";
				announce(T.itemAdded(text));
			} catch (err) {
				shared.fail(err);
			}
			await load().catch(shared.fail);
			input.focus();
		});
	}

	return {
		el: h("section", { class: "card-checklist", "aria-labelledby": heading.id }, heading, progress, list, form),
		load,
		onEvent(e) {
			if (e.type.startsWith("checklist.") && e.subject?.cardId === shared.id) load().catch(shared.fail);
		},
	};
}
