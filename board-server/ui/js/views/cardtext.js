// The card dialog's title and description (contract §24, §25), saved with
// If-Match of the card's ETag (§22).
//
// Preview, decided: Markdown is rendered by the server (§24 `html=true`),
// never in the browser, and the server renders saved text only (there is no
// preview route). So "Preview" shows the server's HTML of the saved text:
// when the draft is the saved text, that is its preview; when it differs,
// Preview says so plainly and offers "Save and preview", which saves (with
// If-Match, as Save does) and then shows the server's rendering, the editor
// staying open. Nothing is saved unless asked, and no preview pretends to show
// text the server has not rendered.
//
// Conflicts, decided: an edit keeps the tag and the text it started from. On
// 412 the card is read again. When this field still holds the text the edit
// started from (the tag changed for something else: a label, the checklist),
// the edit is sent again on the new tag, which overwrites nobody. Otherwise
// the newer text is shown next to the user's, with "Keep mine" (sent again on
// the new tag) and "Use theirs" (the draft is dropped). Nothing is overwritten
// silently.
import { patch } from "../api.js";
import { h, fill, sanitized, uid, announce } from "../h.js";
import { T } from "../text.js";

/** Sends `field` = `value` on the tag `edit` started from; null when saved,
 *  or {theirs, etag} when someone else changed this field meanwhile. */
async function saveText(shared, edit, field, value) {
  for (let i = 0; i < 3; i += 1) {
    try {
      shared.ctx.store.put(await patch(shared.url, { [field]: value }, { ifMatch: edit.etag }));
      edit.base = value;
      const now = await shared.refresh();
      // The tag read after the save is this edit's only if it still holds this
      // text; else (someone saved in between) the next save must meet a 412.
      if (now.card[field] === value) edit.etag = now.etag;
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
function conflictBox(what, theirs, mine, keep, useTheirs) {
  const said = h("p", { class: "alert", role: "alert", tabindex: "-1", id: uid("conflict") }, T.conflict(what));
  const version = (title, text) => h("div", { class: "version" }, h("h4", {}, title), h("p", { class: "version-text" }, text || T.emptyText));
  const box = h("div", { class: "conflict", role: "group", "aria-labelledby": said.id }, said,
    h("div", { class: "versions" }, version(T.theirVersion, theirs), version(T.yourVersion, mine)),
    h("div", { class: "row" },
      h("button", { type: "button", on: { click: keep } }, T.keepMine),
      h("button", { type: "button", on: { click: useTheirs } }, T.useTheirs)));
  setTimeout(() => said.focus());
  return box;
}

/** The title: the dialog's heading, "Edit title", and its editor (Enter saves). */
export function titlePart(shared, heading) {
  const input = h("input", { required: true, maxlength: 100, autocomplete: "off" });
  const note = h("p", { class: "note small", hidden: true }, T.changedElsewhere);
  const conflict = h("div");
  const save = h("button", { type: "submit", class: "primary" }, T.saveTitle);
  const form = h("form", { class: "title-edit", hidden: true, novalidate: true },
    h("label", { class: "visually-hidden", for: (input.id = uid("title")) }, T.cardTitle),
    h("div", { class: "row" }, input, save,
      h("button", { type: "button", on: { click: () => stop() } }, T.cancel)),
    note, conflict);
  const editButton = h("button", { type: "button", hidden: !shared.ctx.canWrite, on: { click: () => start() } }, T.editTitle);
  let edit = null; // {base, etag} while editing
  const start = () => {
    edit = { base: shared.state.card.title, etag: shared.state.etag };
    input.value = edit.base;
    heading.hidden = editButton.hidden = true;
    form.hidden = false;
    input.focus();
    input.select();
  };
  const stop = () => {
    edit = null;
    fill(conflict);
    note.hidden = form.hidden = true;
    heading.hidden = editButton.hidden = save.hidden = false;
    editButton.focus();
  };
  const run = async (value) => {
    try {
      const clash = await saveText(shared, edit, "title", value);
      if (!clash) return stop(), announce(T.titleSaved);
      note.hidden = save.hidden = true;
      fill(conflict, conflictBox(T.theTitle, clash.theirs, value,
        () => { Object.assign(edit, { base: clash.theirs, etag: clash.etag }); fill(conflict); save.hidden = false; run(input.value.trim()); },
        () => { stop(); announce(T.keptTheirs); }));
    } catch (e) {
      shared.fail(e);
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const value = input.value.trim();
    if (edit && value === edit.base && !conflict.firstChild) return stop();
    if (edit) run(value);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { e.preventDefault(); stop(); }
  });
  return {
    el: h("div", { class: "card-title" }, heading, form, editButton),
    editing: () => Boolean(edit),
    draw(card) {
      heading.textContent = card.title;
      if (edit) note.hidden = card.title === edit.base || Boolean(conflict.firstChild);
    },
  };
}

/** The description: the server's HTML, "Edit description", Write / Preview. */
export function descriptionPart(shared) {
  const heading = h("h3", { id: uid("desc") }, T.description);
  const shown = h("div", { class: "markdown" });
  const text = h("textarea", { rows: 10, maxlength: 100000, spellcheck: "true" });
  const write = h("button", { type: "button", "aria-pressed": "true", on: { click: () => tab(false) } }, T.write);
  const preview = h("button", { type: "button", "aria-pressed": "false", on: { click: () => tab(true) } }, T.preview);
  const pane = h("div", { class: "preview", hidden: true });
  const note = h("p", { class: "note small", hidden: true }, T.changedElsewhere);
  const conflict = h("div");
  const save = h("button", { type: "submit", class: "primary" }, T.save);
  const form = h("form", { class: "stack", hidden: true },
    h("div", { class: "row tabs" }, write, preview),
    h("div", { class: "write" }, h("label", { class: "visually-hidden", for: (text.id = uid("d")) }, T.description), text),
    pane, note, conflict,
    h("div", { class: "row" }, save, h("button", { type: "button", on: { click: () => stop() } }, T.cancel)));
  const editButton = h("button", { type: "button", hidden: !shared.ctx.canWrite, on: { click: () => start() } }, T.editDescription);
  let edit = null; // {base, etag} while editing
  const start = () => {
    edit = { base: shared.state.card.description, etag: shared.state.etag };
    text.value = edit.base;
    shown.hidden = editButton.hidden = true;
    form.hidden = false;
    tab(false);
    text.focus();
  };
  const stop = () => {
    edit = null;
    fill(conflict);
    note.hidden = form.hidden = true;
    shown.hidden = editButton.hidden = save.hidden = false;
    editButton.focus();
  };
  // Preview: the server's rendering of the saved text (see the top of the module).
  function tab(previewing) {
    write.setAttribute("aria-pressed", String(!previewing));
    preview.setAttribute("aria-pressed", String(previewing));
    text.parentElement.hidden = previewing;
    pane.hidden = !previewing;
    if (!previewing) return;
    const card = shared.state.card;
    if (text.value === card.description) {
      fill(pane);
      pane.appendChild(card.descriptionHtml ? sanitized(h("div", { class: "markdown" }), card.descriptionHtml) : h("p", { class: "hint" }, T.nothingToPreview));
    } else {
      fill(pane, h("p", { class: "hint" }, T.previewUnsaved),
        h("button", { type: "button", on: { click: () => run(text.value, true) } }, T.saveAndPreview));
    }
  }
  async function run(value, thenPreview) {
    try {
      const clash = await saveText(shared, edit, "description", value);
      if (!clash) {
        announce(T.descriptionSaved);
        if (!thenPreview) return stop();
        tab(true);
        return preview.focus();
      }
      note.hidden = save.hidden = true;
      fill(conflict, conflictBox(T.theDescription, clash.theirs, value,
        () => { Object.assign(edit, { base: clash.theirs, etag: clash.etag }); fill(conflict); save.hidden = false; run(text.value, thenPreview); },
        () => { stop(); announce(T.keptTheirs); }));
    } catch (e) {
      shared.fail(e);
    }
  }
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!edit) return;
    if (text.value === edit.base && !conflict.firstChild) return stop();
    run(text.value, false);
  });
  // Escape leaves an unchanged editor; it never drops typed text (nor closes the dialog then).
  text.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    if (edit && text.value === edit.base) stop();
  });
  return {
    el: h("section", { class: "card-description", "aria-labelledby": heading.id },
      h("div", { class: "row head" }, heading, editButton), shown, form),
    editing: () => Boolean(edit),
    draw(card) {
      if (card.descriptionHtml) sanitized(fill(shown), card.descriptionHtml);
      else fill(shown, h("p", { class: "hint" }, T.noDescription));
      if (edit) note.hidden = card.description === edit.base || Boolean(conflict.firstChild);
    },
  };
}
