// Column management (§5, §20): the add, edit and delete dialogs.
import { post, patch, api } from "../api.js";
import { h, field, inline, openDialog, uid, announce } from "../h.js";
import { T } from "../text.js";

export const ACCENTS = ["slate", "gray", "red", "orange", "amber", "yellow", "lime", "green", "emerald", "teal",
	"cyan", "sky", "blue", "indigo", "violet", "purple", "fuchsia", "pink", "rose"];

function accentPicker(current) {
	const name = uid("accent");
	const legend = h("legend", { class: "visually-hidden" }, T.colour);
	return h("fieldset", { class: "accents" }, legend, ACCENTS.map((a) => {
		const input = h("input", { type: "radio", name, value: a, checked: a === current, "aria-label": a });
		return h("label", { class: `accent-${a}`, title: a }, input, h("span"));
	}));
}

function columnFields(column) {
	const name = h("input", { required: true, maxlength: 100, value: column.name });
	const wip = h("input", { type: "number", min: 1, max: 10000, step: 1, inputmode: "numeric", value: column.wipLimit ?? "" });
	const colour = field(T.colour, accentPicker(column.accent));
	const body = () => ({ name: name.value, color: colour.querySelector("input:checked").value, wipLimit: wip.value ? Number(wip.value) : null });
	return { name, colour, wip: field(T.wipLimit, wip, T.wipHint), body };
}

function formDialog(heading, body, buttons, submit) {
	const title = h("h2", { id: uid("dlg") }, heading);
	const alert = h("p", { class: "alert", role: "alert", hidden: true });
	// The server's refusal says what it accepts: no browser bubble first.
	const form = h("form", { class: "stack", novalidate: true }, title, body, alert, h("div", { class: "actions" }, buttons));
	const dialog = h("dialog", { "aria-labelledby": title.id }, form);
	form.addEventListener("submit", async (e) => {
		e.preventDefault();
		const button = e.submitter;
		if (button?.value === "cancel") return dialog.close();
		try {
			await submit(button ? button.value : "", form);
			dialog.close();
		} catch (err) {
			alert.textContent = err.message;
			alert.hidden = false;
		}
	});
	// Enter in a field saves (the form's first button would be Delete).
	form.addEventListener("keydown", (e) => {
		const primary = form.querySelector("button.primary, button.danger:not(.left)");
		if (e.key === "Enter" && e.target.matches("input:not([type=radio]):not([type=checkbox])") && primary) {
			e.preventDefault();
			form.requestSubmit(primary);
		}
	});
	openDialog(dialog);
	return form;
}

// A button that submits the form (which the browser does not validate) with its value.
const button = (value, text, cls) => h("button", { type: "submit", value, class: cls }, text);

/** "Add column": name, colour, WIP limit. */
export function addColumnDialog(ctx, reload) {
	const f = columnFields({ accent: "slate" });
	const set = ctx.store.columns[0];
	formDialog(T.addColumn, [field(T.columnName, f.name), f.colour, f.wip],
		[button("cancel", T.cancel), button("add", T.addColumn, "primary")],
		async () => {
			await post("/api/columns", { tenantId: ctx.ws.id, projectId: set?.projectId || undefined, ...f.body() });
			await reload();
			announce(`${T.addColumn}: ${f.name.value}`);
		});
	f.name.focus();
}

/** A column's dialog: edit it, move it, or delete it. */
export function columnDialog(ctx, column) {
	const { store } = ctx;
	const f = columnFields(column);
	const done = h("input", { type: "checkbox", checked: column.done, disabled: column.done });
	const index = store.columns.indexOf(column);
	const buttons = [
		button("delete", T.deleteColumn, "left danger"),
		index > 0 ? button("left", T.moveLeft) : null,
		index < store.columns.length - 1 ? button("right", T.moveRight) : null,
		button("cancel", T.cancel),
		button("save", T.save, "primary"),
	];
	formDialog(T.editColumn(column.name), [field(T.columnName, f.name), f.colour,
		inline(done, T.doneColumn),
		f.wip], buttons, async (action) => {
		if (action === "delete") return setTimeout(() => deleteDialog(ctx, column), 0);
		if (action === "left" || action === "right") return ctx.moveColumn(column.id, index + (action === "left" ? -1 : 1));
		const body = f.body();
		if (done.checked && !column.done) body.done = true;
		await patch(`/api/columns/${column.id}`, body);
		await ctx.reload();
	});
	f.name.focus();
}

function deleteDialog(ctx, column) {
	const others = ctx.store.columns.filter((c) => c.id !== column.id);
	const group = uid("fate");
	const moveRadio = h("input", { type: "radio", name: group, value: "MOVE", checked: true });
	const deleteRadio = h("input", { type: "radio", name: group, value: "DELETE" });
	const target = h("select", {}, others.map((c) => h("option", { value: c.id }, c.name)));
	const confirm = h("input", { autocomplete: "off", spellcheck: "false" });
	const legend = h("legend", {}, T.deleteChoice);
	formDialog(T.deleteColumnTitle(column.name), [
		h("fieldset", {}, legend,
			inline(moveRadio, T.moveCardsTo),
			field(T.targetColumn, target),
			inline(deleteRadio, T.deleteCards),
			field(T.typeConfirm, confirm)),
	], [button("cancel", T.cancel), button("delete", T.deleteColumn, "danger")], async () => {
		const body = moveRadio.checked ? { cards: "MOVE", targetColumnId: target.value } : { cards: "DELETE", confirm: confirm.value };
		await api("DELETE", `/api/columns/${column.id}`, body);
		await ctx.reload();
		announce(`${T.deleteColumn}: ${column.name}`);
	});
}
