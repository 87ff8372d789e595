// The flow page's numbers (board-server/ui/js/charts.js) without a browser:
// `node --test tests/ui/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { duration, niceMax } from "../../board-server/ui/js/charts.js";

test("durations read as a person says them, short ones too", () => {
  assert.equal(duration(null), "—");
  assert.equal(duration(0), "0 s");
  assert.equal(duration(0.25), "0.25 s");
  assert.equal(duration(4.567), "4.6 s");
  assert.equal(duration(42.4), "42 s");
  assert.equal(duration(600), "10 min");
  assert.equal(duration(3 * 3600 + 120), "3 h 2 min");
  assert.equal(duration(2 * 86400 + 3600), "2 d 1 h");
});

test("an axis of short times has distinct ticks", () => {
  const top = niceMax(0.004);
  const ticks = [0, top / 2, top].map(duration);
  assert.equal(new Set(ticks).size, 3, ticks.join(", "));
});
