// The card dialog's "Watch" switch (§26): the caller's own choice to hear of
// a card's comments and moves. The card read with the dialog says whether the
// caller watches it; a viewer may watch too.
import { api } from "../api.js";
import { h } from "../h.js";
import { T } from "../text.js";

/** The switch of the dialog `shared` (see card.js): `el`, and `draw(card)`. */
export function watchPart(shared) {
	const button = h("button", { type: "button", class: "watch", role: "switch", "aria-checked": "false", on: { click: toggle } }, T.watch);
	let watching = false;
	async function toggle() {
		button.disabled = true;
		try {
			await api(watching ? "DELETE" : "PUT", `${shared.url}/watch`);
			await shared.refresh();
		} catch (e) {
			shared.fail(e);
		} finally {
			button.disabled = false;
		}
	}
	return {
		el: button,
		draw(card) {
			// A save answers the card without the reader's own flag: keep it.
			if ("watching" in card) watching = Boolean(card.watching);
			button.setAttribute("aria-checked", String(watching));
		},
	};
}
