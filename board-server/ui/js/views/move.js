// The keyboard "Move" action: a column and a place, placed as a drop is.
import { h, fill, field, openDialog, uid } from "../h.js";
import { T } from "../text.js";

/** "Move" for `card`. */
export function moveDialog(ctx, card) {
	const { store } = ctx;
	const columns = h("select", {}, store.columns.map((c) => h("option", { value: c.id, selected: c.id === card.columnId }, c.name)));
	const place = h("select");
	const fillPlaces = () => {
		const column = store.column(columns.value);
		const others = column.cardIds.filter((id) => id !== card.id);
		const here = column.cardIds.indexOf(card.id);
		fill(place,
			h("option", { value: 0 }, T.top),
			others.map((id, i) => h("option", { value: i + 1, selected: i + 1 === here }, T.after(store.cards.get(id).title))));
		if (here < 0) place.value = String(others.length);
	};
	columns.addEventListener("change", fillPlaces);
	fillPlaces();
	const title = h("h2", { id: uid("move") }, T.moveCard(card.title));
	const dialog = h("dialog", { "aria-labelledby": title.id },
		h("form", { method: "dialog" }, title, field(T.column, columns), field(T.place, place),
			h("div", { class: "actions" },
				h("button", { type: "submit", value: "cancel", formnovalidate: true }, T.cancel),
				h("button", { type: "submit", value: "move", class: "primary" }, T.move))));
	openDialog(dialog, (answer) => {
		if (answer !== "move") return;
		ctx.moveCard(card.id, columns.value, Number(place.value));
		// The card's tile was drawn again in its new place: focus follows it.
		const moved = document.querySelector(`li.card[data-id="${CSS.escape(card.id)}"] button.move`);
		moved?.focus();
	});
	columns.focus();
}
