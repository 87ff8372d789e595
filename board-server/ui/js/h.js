// Builds elements; user text is always a text node.

/** h("li", {class: "card", on: {click}}, "text", child, [more]) */
export function h(tag, attrs, ...children) {
	const el = document.createElement(tag);
	if (tag === "button") el.type = "button"; // a submit button says so
	for (const [key, value] of Object.entries(attrs || {})) {
		if (value === null || value === undefined || value === false) continue;
		if (key === "on") {
			for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
		} else if (key === "class") {
			el.className = value;
		} else if (key === "data") {
			Object.assign(el.dataset, value);
		} else if (key === "value" || key === "checked" || key === "selected") {
			el[key] = value;
		} else {
			el.setAttribute(key, value === true ? "" : String(value));
		}
	}
	append(el, children);
	return el;
}

function append(el, children) {
	for (const child of children) {
		if (child === null || child === undefined || child === false) continue;
		if (Array.isArray(child)) append(el, child);
		else if (child instanceof Node) el.appendChild(child);
		else el.appendChild(document.createTextNode(String(child)));
	}
}

/** Replaces an element's children. */
export function fill(el, ...children) {
	el.replaceChildren();
	append(el, children);
	return el;
}

/** Inserts the server's sanitised HTML (api.md §24): the only innerHTML. */
export function sanitized(el, serverHtml) {
	el.innerHTML = serverHtml;
	return el;
}

let unique = 0;
/** A fresh id for label/control pairs. */
export function uid(prefix = "u") {
	unique += 1;
	return `${prefix}-${unique}`;
}

/** A labelled field: <label for>text</label> then the control. */
export function field(text, control, hint) {
	control.id = control.id || uid("f");
	const parts = [h("label", { for: control.id }, text), control];
	if (hint) {
		const note = h("p", { class: "hint", id: uid("hint") }, hint);
		control.setAttribute("aria-describedby", note.id);
		parts.push(note);
	}
	return h("div", { class: "field" }, parts);
}

/** A form's main button. */
export const primaryButton = (text) => h("button", { type: "submit", class: "primary" }, text);

/** A checkbox or radio button with its label after it. */
export function inline(input, text) {
	input.id = input.id || uid("c");
	return h("div", { class: "field inline" }, input, h("label", { for: input.id }, text));
}

/** Says `text` through the page's one aria-live region. */
export function announce(text) {
	const live = document.getElementById("live");
	if (!live) return;
	live.textContent = "";
	setTimeout(() => { live.textContent = text; }, 30);
}

/** Opens `dialog` modally; on close, focus returns where it was and `dialog` goes. */
export function openDialog(dialog, onClose) {
	const back = document.activeElement;
	// A live change may draw the opener again while the dialog is open: its
	// new copy is found by the item and the action it belongs to.
	const holder = back?.closest?.("[data-id]");
	const action = back?.dataset?.action;
	const again = holder && action
		? `[data-id="${CSS.escape(holder.dataset.id)}"] [data-action="${CSS.escape(action)}"]` : null;
	document.body.appendChild(dialog);
	dialog.addEventListener("close", () => {
		// The close event comes a task later: a key pressed meanwhile may
		// have put the focus somewhere on purpose; it stays there.
		const at = document.activeElement;
		const lost = !at || at === document.body || dialog.contains(at);
		dialog.remove();
		const to = back?.isConnected ? back : again && document.querySelector(again);
		if (lost) to?.focus?.();
		onClose?.(dialog.returnValue);
	});
	dialog.showModal();
	return dialog;
}
