// The card dialog's fields (contract §24): due date, labels, assignees. Each
// change is sent at once; the board and the dialog then show the server's card.
//
// Due date, decided: a date without a time, due at the end of that day in the
// browser's time zone, sent as an RFC 3339 UTC timestamp; "Clear due date"
// sends null. Typing a date is sent once the typing pauses (or the field is
// left), not at every digit. Labels and assignees change one at a time
// (PUT/DELETE), so that two people labelling at once lose nothing. These send
// no If-Match: each is one value set on purpose, where the last word wins.
import { api, get, patch, query } from "../api.js";
import { h, fill, uid } from "../h.js";
import { T } from "../text.js";

const pad = (n) => String(n).padStart(2, "0");

/** `YYYY-MM-DD` of a timestamp, in local time ("" for none). */
function localDay(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The last millisecond of a local day, as RFC 3339 UTC. */
function endOfDay(day) {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(y, m - 1, d, 23, 59, 59, 999).toISOString();
}

/** A group of checkboxes named by `items` ({id, name, accent?}), kept by id so
 *  that a redraw keeps focus; `toggle(id, on)` sends a change. */
function checkGroup(legend, emptyText, toggle, disabled) {
  const list = h("div", { class: "checks" });
  const el = h("fieldset", { class: "card-checks" }, h("legend", {}, legend), list);
  const boxes = new Map();
  // A box the user just changed keeps its state until its answer arrives: an
  // older card drawn meanwhile must not flip it back.
  const sending = new Map();
  let shape = "";
  return {
    el,
    draw(items, chosen) {
      const next = JSON.stringify(items.map((i) => [i.id, i.name, i.accent]));
      if (next !== shape) {
        shape = next;
        boxes.clear();
        fill(list, items.length ? null : h("p", { class: "hint" }, emptyText), items.map((item) => {
          const box = h("input", { type: "checkbox", disabled, on: { change: () => {
            const n = (sending.get(item.id) || 0) + 1;
            sending.set(item.id, n);
            Promise.resolve(toggle(item.id, box.checked)).finally(() => {
              if (sending.get(item.id) === n) sending.delete(item.id);
            });
          } } });
          boxes.set(item.id, box);
          return h("label", { class: "chip-check" }, box,
            h("span", { class: item.accent ? `chip accent-${item.accent}` : "chip" }, item.name));
        }));
      }
      for (const [id, box] of boxes) if (!sending.has(id)) box.checked = chosen.includes(id);
    },
  };
}

export function fieldsPart(shared) {
  const { ctx, url } = shared;
  const send = (method, path) => shared.change(() => api(method, path));
  const at = (kind, id) => `${url}/${kind}/${encodeURIComponent(id)}`;

  // Due date
  const due = h("input", { type: "date", id: uid("due"), disabled: !ctx.canWrite });
  const clear = h("button", { type: "button", hidden: !ctx.canWrite, on: { click: () => { due.value = ""; sendDue(); } } }, T.clearDue);
  let timer = null;
  function sendDue() {
    clearTimeout(timer);
    timer = null;
    if (due.value === localDay(shared.state.card.dueAt)) return;
    const dueAt = due.value ? endOfDay(due.value) : null;
    shared.change(() => patch(url, { dueAt }));
  }
  due.addEventListener("change", () => { clearTimeout(timer); timer = setTimeout(sendDue, 600); });
  due.addEventListener("blur", () => { if (timer) sendDue(); });

  // Labels and assignees, from the board's lists (read again when they change).
  let labels = ctx.labels;
  let members = ctx.members;
  const labelGroup = checkGroup(T.labels, T.noLabels, (id, on) => send(on ? "PUT" : "DELETE", at("labels", id)), !ctx.canWrite);
  const peopleGroup = checkGroup(T.assignees, T.noMembers, (id, on) => send(on ? "PUT" : "DELETE", at("assignees", id)), !ctx.canWrite);
  const draw = (card) => {
    if (document.activeElement !== due && !timer) due.value = localDay(card.dueAt);
    labelGroup.draw([...labels.values()], card.labelIds);
    peopleGroup.draw([...members.values()].map((m) => ({ id: m.accountId, name: m.name })), card.assigneeIds);
  };
  let listTimer = null;
  const readLists = async () => {
    const tenant = query({ tenant: ctx.ws.id });
    const [l, m] = await Promise.all([get(`/api/labels${tenant}`), get(`/api/members${tenant}`)]);
    labels = new Map(l.map((x) => [x.id, x]));
    members = new Map(m.map((x) => [x.accountId, x]));
    if (shared.state.card) draw(shared.state.card);
  };

  return {
    el: h("section", { class: "card-fields", "aria-label": T.details },
      h("div", { class: "field" }, h("label", { for: due.id }, T.dueDate), h("div", { class: "row" }, due, clear)),
      labelGroup.el, peopleGroup.el),
    draw,
    onEvent(e) {
      if (!e.type.startsWith("label.") && !e.type.startsWith("member.")) return;
      clearTimeout(listTimer);
      listTimer = setTimeout(() => readLists().catch(shared.fail), 200);
    },
    destroy() {
      clearTimeout(timer);
      clearTimeout(listTimer);
    },
  };
}
