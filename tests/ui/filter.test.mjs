// The board's filter (board-server/ui/js/filter.js) without a browser:
// `node --test tests/ui/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFilter, filterQuery, filtering, matcher, dueIs, fullIndex } from "../../board-server/ui/js/filter.js";

const card = (more) => ({ title: "Write the tests", labelIds: [], assigneeIds: [], dueAt: null, ...more });

test("the filter goes to the URL query and comes back the same", () => {
  const f = readFilter("?label=L1&label=L2&assignee=me&due=overdue&q=%20write%20");
  assert.deepEqual(f, { q: "write", label: ["L1", "L2"], assignee: ["me"], due: ["overdue"] });
  assert.equal(filterQuery(f), "?label=L1&label=L2&assignee=me&due=overdue&q=write");
  assert.deepEqual(readFilter(filterQuery(f)), f);
  assert.equal(filterQuery(readFilter("")), "");
  assert.equal(filtering(readFilter("?other=1")), false);
  assert.equal(filtering(f), true);
});

test("kinds combine with AND, choices within a kind with OR", () => {
  const f = readFilter("?label=bug&label=ui&assignee=none");
  const match = matcher(f, "me-id");
  assert.equal(match(card({ labelIds: ["ui"] })), true);
  assert.equal(match(card({ labelIds: ["ui"], assigneeIds: ["x"] })), false);
  assert.equal(match(card({ labelIds: ["docs"] })), false);
  const mine = matcher(readFilter("?assignee=me&assignee=ana&q=TESTS write"), "me-id");
  assert.equal(mine(card({ assigneeIds: ["me-id"] })), true);
  assert.equal(mine(card({ assigneeIds: ["ana"] })), true);
  assert.equal(mine(card({ assigneeIds: ["bob"] })), false);
  assert.equal(mine(card({ assigneeIds: ["ana"], title: "Write docs" })), false);
});

test("due choices: overdue, later today, within 7 days, no date", () => {
  const now = new Date(2026, 10, 29, 12, 0).getTime();
  const at = (days, hours = 0) => new Date(now + days * 864e5 + hours * 36e5).toISOString();
  assert.equal(dueIs("overdue", at(0, -1), now), true);
  assert.equal(dueIs("overdue", at(0, 1), now), false);
  assert.equal(dueIs("today", at(0, 11), now), true);
  assert.equal(dueIs("today", at(0, 13), now), false);
  assert.equal(dueIs("today", at(0, -1), now), false);
  assert.equal(dueIs("week", at(6, 23), now), true);
  assert.equal(dueIs("week", at(7, 1), now), false);
  assert.equal(dueIs("week", at(0, -1), now), false);
  assert.equal(dueIs("none", null, now), true);
  assert.equal(dueIs("none", at(1), now), false);
});

test("a drop among visible cards lands between its visible neighbours", () => {
  const others = ["a", "h1", "b", "h2", "c", "h3"];
  const shows = (id) => !id.startsWith("h");
  assert.equal(fullIndex(others, shows, 0), 0); // above a
  assert.equal(fullIndex(others, shows, 1), 2); // above b (below h1)
  assert.equal(fullIndex(others, shows, 3), 5); // below c
  assert.equal(fullIndex(["h1", "h2"], shows, 0), 2); // none visible: the end
});
