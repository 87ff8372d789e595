// Live events (§11); `reset` means: read everything again.

/** Every event type (board-core's WEBHOOK_EVENTS): the stream's, and a webhook's choice. */
export const EVENTS = `column.created column.updated columns.reordered column.deleted card.created card.updated
card.moved card.deleted comment.created comment.updated comment.deleted
attachment.created attachment.deleted relation.created relation.deleted settings.updated
cards.repositioned card.archived card.restored label.created label.updated label.deleted
checklist.created checklist.updated checklist.deleted member.added member.updated
member.removed project.created project.updated import.completed`.split(/\s+/);

/** Where `notification.created` (§26: the account's own, on each of its
 * workspace streams, not a webhook event) is told, as a "new" event; `open`
 * counts the pages' streams followed now. */
export const inbox = Object.assign(new EventTarget(), { open: 0 });

/** Follows workspace `tenant` from event `after`; returns what stops it. */
export function follow(tenant, after, { onEvent, onReset, onOpen, onDown }) {
	const resume = after ? `&after=${after}` : "";
	const source = new EventSource(`/api/events?tenant=${encodeURIComponent(tenant)}${resume}`);
	let opened = false;
	for (const type of EVENTS) {
		source.addEventListener(type, (e) => onEvent(JSON.parse(e.data)));
	}
	source.addEventListener("notification.created", () => inbox.dispatchEvent(new Event("new")));
	inbox.open += 1;
	source.addEventListener("reset", () => onReset());
	source.addEventListener("open", () => {
		// "stream-open": when a page's first read is followed by its stream.
		if (!opened) performance.mark("stream-open");
		onOpen(!opened);
		opened = true;
	});
	source.addEventListener("error", () => onDown(source.readyState === EventSource.CLOSED));
	let counted = true;
	return () => {
		if (counted) inbox.open -= 1;
		counted = false;
		source.close();
	};
}
