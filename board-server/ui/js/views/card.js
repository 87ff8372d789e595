// The card dialog, named by the card's title, at `/w/<tenant>/c/<card>`.
// (Part 1: the card as it is; editing in the dialog comes with part 2.)
import { get } from "../api.js";
import { h, fill, sanitized, uid, openDialog } from "../h.js";
import { T } from "../text.js";
import { go, boardPath } from "../router.js";

/** Opens card `id` over the board; closing it goes back to the board's path. */
export function openCard(ctx, id) {
  const title = h("h2", { id: uid("card") }, T.loading);
  const body = h("div", { class: "card-body" });
  const dialog = h("dialog", { class: "card-dialog", "aria-labelledby": title.id },
    h("div", { class: "row" }, title, h("form", { method: "dialog", class: "close" }, h("button", { value: "close" }, T.close))), body);
  let closing = false;
  openDialog(dialog, () => {
    if (!closing && location.pathname.includes("/c/")) go(boardPath(ctx.ws.id, ctx.route.project));
  });
  get(`/api/cards/${encodeURIComponent(id)}?html=true`).then((card) => {
    title.textContent = card.title;
    const column = ctx.store.column(card.columnId);
    const labels = card.labelIds.map((l) => ctx.labels.get(l)).filter(Boolean);
    fill(body,
      h("p", { class: "hint" }, column ? `${T.column}: ${column.name}` : ""),
      labels.length ? h("ul", { class: "labels", "aria-label": T.labels }, labels.map((l) => h("li", { class: `accent-${l.accent}` }, l.name))) : null,
      card.descriptionHtml ? sanitized(h("div", { class: "markdown" }), card.descriptionHtml) : null);
  }).catch((e) => fill(body, h("p", { role: "alert", class: "alert" }, e.message)));
  return { close() { closing = true; if (dialog.open) dialog.close(); } };
}
