// Pieces the pages and the card dialog share.
import { h, field, uid, announce, openDialog } from "../h.js";
import { T } from "../text.js";

/** The message of a refusal, with when to retry for 429. */
export function refusal(e) {
	return e.status === 429 && e.retryAfter ? `${e.message} ${T.retryIn(e.retryAfter)}` : e.message;
}

/** Shows a refusal for a while, in an alert with a Close button. */
export function toast(text) {
	const close = h("button", {}, T.close);
	const note = h("div", { class: "alert", role: "alert" }, h("span", {}, text), close);
	close.addEventListener("click", () => note.remove());
	document.getElementById("toasts").appendChild(note);
	setTimeout(() => note.remove(), 10000);
}

/** A `<section class="panel">` with its heading, an alert, a status line and a body. */
export function panel(title) {
	const heading = h("h2", { id: uid("h"), tabindex: "-1" }, title);
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
	const status = h("p", { class: "hint", hidden: true });
	const body = h("div", { class: "stack" });
	const el = h("section", { class: "panel", "aria-labelledby": heading.id }, heading, alert, status, body);
	return { el, heading, alert, status, body };
}

/** Shows `text` in the panel's status line and says it through the live region. */
export function said(p, text) {
	p.status.textContent = text;
	p.status.hidden = false;
	announce(text);
}

/** Runs `fn` with `button` disabled; a refusal goes to `alert`. True when it worked. */
export async function attempt(alert, button, fn) {
	alert.hidden = true;
	if (button) button.disabled = true;
	try {
		await fn();
		return true;
	} catch (e) {
		alert.textContent = refusal(e);
		alert.hidden = false;
		return false;
	} finally {
		if (button) button.disabled = false;
	}
}

/** A `<time>` for an RFC 3339 instant, or "Never" for null. */
export function timeEl(iso) {
	if (!iso) return T.never;
	const text = new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
	return h("time", { datetime: iso }, text);
}

/** The text of a `<time>` (for accessible names). */
export function whenText(iso) {
	const t = timeEl(iso);
	return typeof t === "string" ? t : t.textContent;
}

/** A secret shown once: a read-only input and a button that copies it. */
export function shownOnce(label, copyLabel, value, hint) {
	const input = h("input", { readonly: true, value, class: "once", spellcheck: "false" });
	const copy = h("button", { on: { click: async () => {
		try {
			await navigator.clipboard.writeText(input.value);
			announce(T.copied);
		} catch {
			input.focus();
			input.select();
			announce(T.copyByHand);
		}
	} } }, copyLabel);
	const box = h("div", { class: "row bottom" }, field(label, input, hint), copy);
	setTimeout(() => { input.focus(); input.select(); });
	return box;
}

/** Asks in a modal `<dialog>`; resolves to true when `yes` was chosen. */
export function confirmDialog(title, text, yes) {
	return new Promise((resolve) => {
		const heading = h("h2", { id: uid("dlg") }, title);
		const dialog = h("dialog", { "aria-labelledby": heading.id },
			h("form", { method: "dialog" }, heading, h("p", {}, text), h("div", { class: "actions" },
				h("button", { type: "submit", value: "cancel", autofocus: true }, T.cancel),
				h("button", { type: "submit", value: "yes", class: "danger" }, yes))));
		openDialog(dialog, (value) => resolve(value === "yes"));
	});
}

/** A table with column headings; each row a `<tr>`, or an array of its cells. */
export function table(headings, rows) {
	return h("div", { class: "table-scroll" }, h("table", {},
		h("thead", {}, h("tr", {}, headings.map((t) => h("th", { scope: "col" }, t)))),
		h("tbody", {}, rows.map((r) => (Array.isArray(r) ? h("tr", {}, r.map((c) => h("td", {}, c))) : r)))));
}

/** A handler for a failed read: the refusal shows in the panel's alert. */
export const showError = (p) => (e) => { p.alert.textContent = refusal(e); p.alert.hidden = false; };
