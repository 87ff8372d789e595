// The board's state: the one place where events and answers change it.

/** A board: its columns in order, each with its cards' ids in order. */
export class BoardStore {
	constructor() {
		this.columns = [];
		this.cards = new Map();
		this.listeners = [];
	}

	/** `fn({columns: Set<id> | "all", cards: Set<id>})` after every change. */
	subscribe(fn) {
		this.listeners.push(fn);
	}

	emit(columns, cards = []) {
		const change = { columns: columns === "all" ? columns : new Set(columns), cards: new Set(cards) };
		for (const fn of this.listeners) fn(change);
	}

	/** Replaces everything with a `GET /api/board` payload. */
	load(payload) {
		this.cards = new Map();
		this.columns = payload.columns.map(({ cards, ...column }) => {
			for (const card of cards) this.cards.set(card.id, card);
			return { ...column, cardIds: cards.map((c) => c.id) };
		});
		this.emit("all");
	}

	column(id) {
		return this.columns.find((c) => c.id === id);
	}

	/** Where a card sits: {column, index}, or null. */
	where(cardId) {
		for (const column of this.columns) {
			const index = column.cardIds.indexOf(cardId);
			if (index >= 0) return { column, index };
		}
		return null;
	}

	/** Moves a card at once, before the server answers; returns what undoes it. */
	moveLocal(cardId, columnId, index) {
		const from = this.where(cardId);
		const to = this.column(columnId);
		if (!from || !to) return null;
		const undo = { cardId, columnId: from.column.id, index: from.index, card: this.cards.get(cardId) };
		from.column.cardIds.splice(from.index, 1);
		to.cardIds.splice(Math.min(index, to.cardIds.length), 0, cardId);
		this.cards.set(cardId, { ...undo.card, columnId });
		this.emit([from.column.id, columnId], [cardId]);
		return undo;
	}

	/** Puts a card back where `moveLocal` took it from. */
	undo(u) {
		const now = this.where(u.cardId);
		if (!now) return;
		now.column.cardIds.splice(now.index, 1);
		const back = this.column(u.columnId);
		if (!back) return;
		back.cardIds.splice(Math.min(u.index, back.cardIds.length), 0, u.cardId);
		this.cards.set(u.cardId, u.card);
		this.emit([now.column.id, u.columnId], [u.cardId]);
	}

	/** A card as the server has it now, placed by position (or gone from this board). */
	put(card) {
		const changed = new Set();
		const was = this.where(card.id);
		if (was) {
			was.column.cardIds.splice(was.index, 1);
			changed.add(was.column.id);
		}
		const to = card.archivedAt ? null : this.column(card.columnId);
		if (to) {
			this.cards.set(card.id, card);
			const at = to.cardIds.findIndex((id) => {
				const other = this.cards.get(id);
				return other?.position > card.position;
			});
			to.cardIds.splice(at < 0 ? to.cardIds.length : at, 0, card.id);
			changed.add(to.id);
		} else {
			this.cards.delete(card.id);
		}
		this.emit(changed, [card.id]);
	}

	/** A card gone from the board (deleted or archived). */
	remove(cardId) {
		const was = this.where(cardId);
		this.cards.delete(cardId);
		if (was) {
			was.column.cardIds.splice(was.index, 1);
			this.emit([was.column.id]);
		}
	}

	/** New positions of other cards of a column (`cards.repositioned`). */
	reposition(columnId, moved) {
		const column = this.column(columnId);
		if (!column) return;
		for (const { id, position } of moved) {
			const card = this.cards.get(id);
			if (card) this.cards.set(id, { ...card, position });
		}
		column.cardIds.sort((a, b) => this.cards.get(a).position - this.cards.get(b).position);
		this.emit([columnId]);
	}

	/** Applies one live event; returns false when only a reload can apply it. */
	apply(event) {
		const s = event.subject;
		switch (event.type) {
			case "card.created":
			case "card.updated":
			case "card.moved":
			case "card.restored":
				this.put(s);
				return true;
			case "card.deleted":
			case "card.archived":
				this.remove(s.id);
				return true;
			case "cards.repositioned":
				this.reposition(s.columnId, s.cards);
				return true;
			case "comment.created":
				return this.count(event);
			default:
				return false;
		}
	}

	/** A new comment: its card's count, by one. */
	count(event) {
		const card = this.cards.get(event.subject.cardId);
		if (!card) return true;
		this.cards.set(card.id, { ...card, commentCount: card.commentCount + 1 });
		this.emit([], [card.id]);
		return true;
	}
}

/** §16's placement for a card dropped at `index` of `ids` (the others). */
export function placement(ids, index) {
	if (index < ids.length) return { beforeId: ids[index] };
	if (ids.length) return { afterId: ids[ids.length - 1] };
	return {};
}
