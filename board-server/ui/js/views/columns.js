// Column management (contract §5, §20, §25): add, rename, colour, done mark,
// WIP limit, move left or right, and delete with MOVE or DELETE.
import { post, patch, api } from "../api.js";
import { h, field, openDialog, uid, announce } from "../h.js";
import { T } from "../text.js";

export const ACCENTS = ["slate", "gray", "red", "orange", "amber", "yellow", "lime", "green", "emerald", "teal",
  "cyan", "sky", "blue", "indigo", "violet", "purple", "fuchsia", "pink", "rose"];

/** The colour choice: one radio per accent token, each named by its token. */
function accentPicker(current) {
  const name = uid("accent");
  const legend = h("legend", { class: "visually-hidden" }, T.colour);
  return h("fieldset", { class: "accents" }, legend, ACCENTS.map((a) => {
    const input = h("input", { type: "radio", name, value: a, checked: a === current, "aria-label": a });
    return h("label", { class: `accent-${a}`, title: a }, input, h("span"));
  }));
}

function wipInput(value) {
  return h("input", { type: "number", min: 1, max: 10000, step: 1, inputmode: "numeric", value: value ?? "" });
}

/** A dialog with a form: `submit(form)` resolves to close it, or throws to show the alert. */
function formDialog(heading, body, buttons, submit) {
  const title = h("h2", { id: uid("dlg") }, heading);
  const alert = h("p", { class: "alert", role: "alert", hidden: true });
  // The server's refusal says what it accepts: no browser bubble first.
  const form = h("form", { class: "stack", novalidate: true }, title, body, alert, h("div", { class: "actions" }, buttons));
  const dialog = h("dialog", { "aria-labelledby": title.id }, form);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const button = e.submitter;
    if (button && button.value === "cancel") return dialog.close();
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

const cancel = () => h("button", { type: "submit", value: "cancel", formnovalidate: true }, T.cancel);

export function addColumnDialog(ctx, reload) {
  const name = h("input", { required: true, maxlength: 100 });
  const wip = wipInput(null);
  const set = ctx.store.columns[0];
  formDialog(T.addColumn, [field(T.columnName, name), field(T.colour, accentPicker("slate")), field(T.wipLimit, wip, T.wipHint)],
    [cancel(), h("button", { type: "submit", class: "primary", value: "add" }, T.addColumn)],
    async (_, form) => {
      await post("/api/columns", {
        tenantId: ctx.ws.id, projectId: set && set.projectId ? set.projectId : undefined, name: name.value,
        color: form.querySelector("input[type=radio]:checked").value, wipLimit: wip.value ? Number(wip.value) : null,
      });
      await reload();
      announce(`${T.addColumn}: ${name.value}`);
    });
  name.focus();
}

export function columnDialog(ctx, column) {
  const { store } = ctx;
  const name = h("input", { required: true, maxlength: 100, value: column.name });
  const wip = wipInput(column.wipLimit);
  const done = h("input", { type: "checkbox", checked: column.done, disabled: column.done });
  const index = store.columns.indexOf(column);
  const buttons = [
    h("button", { type: "submit", value: "delete", class: "left danger", formnovalidate: true }, T.deleteColumn),
    index > 0 ? h("button", { type: "submit", value: "left", formnovalidate: true }, T.moveLeft) : null,
    index < store.columns.length - 1 ? h("button", { type: "submit", value: "right", formnovalidate: true }, T.moveRight) : null,
    cancel(),
    h("button", { type: "submit", class: "primary", value: "save" }, T.save),
  ];
  formDialog(T.editColumn(column.name), [field(T.columnName, name), field(T.colour, accentPicker(column.accent)),
    h("div", { class: "field inline" }, done, h("label", { for: (done.id = uid("done")) }, T.doneColumn)),
    field(T.wipLimit, wip, T.wipHint)], buttons, async (action, form) => {
    if (action === "delete") return setTimeout(() => deleteDialog(ctx, column), 0);
    if (action === "left" || action === "right") return ctx.moveColumn(column.id, index + (action === "left" ? -1 : 1));
    const body = { name: name.value, color: form.querySelector("input[type=radio]:checked").value, wipLimit: wip.value ? Number(wip.value) : null };
    if (done.checked && !column.done) body.done = true;
    await patch(`/api/columns/${column.id}`, body);
    await ctx.reload();
  });
  name.focus();
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
      h("div", { class: "field inline" }, moveRadio, h("label", { for: (moveRadio.id = uid("r")) }, T.moveCardsTo)),
      field(T.targetColumn, target),
      h("div", { class: "field inline" }, deleteRadio, h("label", { for: (deleteRadio.id = uid("r")) }, T.deleteCards)),
      field(T.typeConfirm, confirm)),
  ], [cancel(), h("button", { type: "submit", class: "danger", value: "delete" }, T.deleteColumn)], async () => {
    const body = moveRadio.checked ? { cards: "MOVE", targetColumnId: target.value } : { cards: "DELETE", confirm: confirm.value };
    await api("DELETE", `/api/columns/${column.id}`, body);
    await ctx.reload();
    announce(`${T.deleteColumn}: ${column.name}`);
  });
}
