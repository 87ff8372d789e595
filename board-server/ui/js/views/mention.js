// `@` in a comment or a description offers the workspace's members (api.md
// §26): the list follows what is typed after the `@`; arrows choose, Enter or
// Tab inserts "@Name ", Escape closes it (and nothing else); a click inserts
// too. The box stays a text box: `aria-autocomplete`, `aria-controls` and
// `aria-activedescendant` point at the listbox, focus never leaves the box.
import { h, fill, uid, announce } from "../h.js";
import { T } from "../text.js";

// An `@` names someone only at the start or after a character that is not a
// letter or digit (`ann@example.com` names nobody), as the server reads it.
const AT = /(?:^|[^\p{L}\p{N}])@([^@\n]{0,40})$/u;

/** `text` (a textarea) in a box with its suggestions; `members()` gives the
 * workspace's members, an iterable of `{accountId, name}`. */
export function mentions(text, members) {
	const list = h("ul", { role: "listbox", id: uid("people"), class: "mentions", "aria-label": T.members, hidden: true });
	let found = [];
	let active = 0;
	let start = -1; // where the `@` is
	text.setAttribute("aria-autocomplete", "list");
	const close = () => {
		list.hidden = true;
		found = [];
		text.removeAttribute("aria-controls");
		text.removeAttribute("aria-activedescendant");
	};
	function suggest() {
		const before = text.value.slice(0, text.selectionEnd);
		const m = text.selectionStart === text.selectionEnd && before.match(AT);
		const typed = m ? ` ${m[1].toLowerCase()}` : null;
		// A name, or any word of it, begins with what was typed.
		const now = typed === null ? [] : [...members()].filter((p) => ` ${p.name.toLowerCase()}`.includes(typed))
			.sort((a, b) => a.name.localeCompare(b.name)).slice(0, 8);
		if (!now.length) return close();
		const opening = list.hidden;
		start = before.length - m[1].length - 1;
		found = now;
		active = Math.min(active, found.length - 1);
		list.hidden = false;
		text.setAttribute("aria-controls", list.id);
		draw();
		if (opening) announce(T.suggestions(found.length));
	}
	function draw() {
		fill(list, found.map((p, i) => h("li", { role: "option", id: `${list.id}-${i}`, "aria-selected": String(i === active),
			on: { mousedown: (e) => e.preventDefault(), click: () => pick(i) } }, p.name)));
		text.setAttribute("aria-activedescendant", `${list.id}-${active}`);
		list.children[active].scrollIntoView({ block: "nearest" });
	}
	function pick(i) {
		const name = `@${found[i].name} `;
		const end = text.selectionEnd;
		text.setRangeText(name, start, end, "end");
		close();
		text.focus();
	}
	text.addEventListener("input", () => { active = 0; suggest(); });
	text.addEventListener("click", () => (list.hidden ? null : suggest()));
	// A caret moved by a key (←, →, Home, End) changes what comes before it.
	const moves = new Set(["ArrowLeft", "ArrowRight", "Home", "End"]);
	text.addEventListener("keyup", (e) => (list.hidden || !moves.has(e.key) ? null : suggest()));
	text.addEventListener("blur", close);
	// Before the box's own keys (Escape leaves an editor, closes a dialog).
	text.addEventListener("keydown", (e) => {
		if (list.hidden || e.isComposing) return;
		const step = { ArrowDown: 1, ArrowUp: -1 }[e.key];
		if (step) active = (active + step + found.length) % found.length;
		else if (e.key === "Enter" || e.key === "Tab") pick(active);
		else if (e.key === "Escape") close();
		else return;
		e.preventDefault();
		e.stopImmediatePropagation();
		if (step) draw();
	}, true);
	return h("div", { class: "mention" }, text, list);
}
