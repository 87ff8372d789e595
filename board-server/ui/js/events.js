// Live events (contract §11): EventSource resumes with Last-Event-ID by
// itself after a drop; `reset` means events were lost: read everything again.

const TYPES = [
  "column.created", "column.updated", "columns.reordered", "column.deleted",
  "card.created", "card.updated", "card.moved", "card.deleted", "cards.repositioned",
  "card.archived", "card.restored", "comment.created", "comment.updated", "comment.deleted",
  "attachment.created", "attachment.deleted", "relation.created", "relation.deleted",
  "settings.updated", "label.created", "label.updated", "label.deleted",
  "checklist.created", "checklist.updated", "checklist.deleted",
  "member.added", "member.updated", "member.removed", "project.created", "project.updated",
];

/** Follows workspace `tenant`: `onEvent(data)` for each event, `onReset()`,
 *  `onOpen(first)` when connected, `onDown()` when the connection drops.
 *  `after`: the last event seen, when following again after a stop.
 *  Returns a function that stops following. */
export function follow(tenant, after, { onEvent, onReset, onOpen, onDown }) {
  const resume = after ? `&after=${after}` : "";
  const source = new EventSource(`/api/events?tenant=${encodeURIComponent(tenant)}${resume}`);
  let opened = false;
  for (const type of TYPES) {
    source.addEventListener(type, (e) => onEvent(JSON.parse(e.data)));
  }
  source.addEventListener("reset", () => onReset());
  source.addEventListener("open", () => {
    onOpen(!opened);
    opened = true;
  });
  source.addEventListener("error", () => onDown(source.readyState === EventSource.CLOSED));
  return () => source.close();
}
