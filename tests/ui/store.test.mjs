// The board's state (board-server/ui/js/store.js) without a browser:
// `node --test tests/ui/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BoardStore, placement } from "../../board-server/ui/js/store.js";

const card = (id, columnId, position, more = {}) => ({ id, columnId, position, title: id, commentCount: 0, ...more });
const board = () => {
  const store = new BoardStore();
  store.load({ columns: [
    { id: "todo", name: "To do", cards: [card("a", "todo", 1), card("b", "todo", 2), card("c", "todo", 3)] },
    { id: "done", name: "Done", cards: [] },
  ] });
  return store;
};
const ids = (store, column) => store.column(column).cardIds;

test("the placement of a drop names the card below, else the one above", () => {
  assert.deepEqual(placement(["x", "y"], 0), { beforeId: "x" });
  assert.deepEqual(placement(["x", "y"], 1), { beforeId: "y" });
  assert.deepEqual(placement(["x", "y"], 2), { afterId: "y" });
  assert.deepEqual(placement([], 0), {});
});

test("a local move and its undo restore the order", () => {
  const store = board();
  const undo = store.moveLocal("a", "done", 0);
  assert.deepEqual(ids(store, "todo"), ["b", "c"]);
  assert.deepEqual(ids(store, "done"), ["a"]);
  store.undo(undo);
  assert.deepEqual(ids(store, "todo"), ["a", "b", "c"]);
  assert.equal(store.cards.get("a").columnId, "todo");
});

test("events place cards by position and leave other boards' cards out", () => {
  const store = board();
  const seen = [];
  store.subscribe((change) => seen.push(change));
  assert.ok(store.apply({ type: "card.moved", subject: card("c", "todo", 0) }));
  assert.deepEqual(ids(store, "todo"), ["c", "a", "b"]);
  assert.ok(store.apply({ type: "card.created", subject: card("z", "elsewhere", 1) }));
  assert.equal(store.cards.has("z"), false);
  assert.ok(store.apply({ type: "card.moved", subject: card("a", "done", 5) }));
  assert.deepEqual(ids(store, "done"), ["a"]);
  assert.ok(store.apply({ type: "cards.repositioned", subject: { columnId: "todo", cards: [{ id: "c", position: 9 }] } }));
  assert.deepEqual(ids(store, "todo"), ["b", "c"]);
  assert.ok(store.apply({ type: "card.archived", subject: card("b", "todo", 2, { archivedAt: "now" }) }));
  assert.deepEqual(ids(store, "todo"), ["c"]);
  assert.ok(store.apply({ type: "comment.created", subject: { id: "k", cardId: "c" } }));
  assert.equal(store.cards.get("c").commentCount, 1);
  assert.equal(store.apply({ type: "column.created", subject: {} }), false);
  assert.ok(seen.length >= 6);
});
