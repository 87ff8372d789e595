// Drag and drop with pointer events: mouse and touch, one code path. The
// dragged element moves by a `transform`; a placeholder holds its place.
// Layout is read once, when a drag starts (and after an auto-scroll step, in
// the animation frame), never inside a move handler. Escape cancels.

const GAP = 8; // px between cards (css: ul.cards gap)
const EDGE = 48; // px from an edge where auto-scroll starts
let active = null;
const idle = [];

/** Whether a drag is under way (views hold their re-renders until it ends). */
export function dragging() {
  return active !== null;
}

/** `fn()` after every drag, once the dragged element is back in the flow;
 *  returns what stops it. */
export function afterDrag(fn) {
  idle.push(fn);
  return () => idle.splice(idle.indexOf(fn), 1);
}

function ended() {
  for (const fn of idle) fn();
}

// A touch drag must not scroll the page under the finger.
document.addEventListener("touchmove", (e) => { if (active) e.preventDefault(); }, { passive: false });
document.addEventListener("keydown", (e) => { if (active && e.key === "Escape") active.finish(false); });

/** Makes the cards (`li.card`) inside `board` draggable. `drop(cardId, columnId, index)`
 *  is called with the place among the target column's other cards. */
export function draggableCards(board, scroller, drop) {
  board.addEventListener("pointerdown", (e) => {
    const card = e.target.closest("li.card");
    if (!card || active || e.button !== 0 || e.target.closest("button, input, select, textarea")) return;
    press(e, () => (card.isConnected ? cardDrag(e, card, board, scroller, drop) : null));
  });
  board.addEventListener("dragstart", (e) => e.preventDefault());
}

/** Makes the columns draggable by their headers. `drop(columnId, index)`. */
export function draggableColumns(board, scroller, drop) {
  board.addEventListener("pointerdown", (e) => {
    const header = e.target.closest("section.column > header");
    if (!header || active || e.button !== 0 || e.target.closest("button, input, select")) return;
    press(e, () => (header.isConnected ? columnDrag(e, header.parentElement, board, scroller, drop) : null));
  });
}

/** Waits for the press to become a drag: 5 px of mouse movement, or a touch
 *  held 300 ms without moving (so that a swipe still scrolls). */
function press(down, begin) {
  const touch = down.pointerType !== "mouse";
  let timer = null;
  let drag = null;
  const done = () => {
    clearTimeout(timer);
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    window.removeEventListener("pointercancel", up);
  };
  const move = (e) => {
    if (e.pointerId !== down.pointerId) return;
    if (drag) return drag.move(e);
    const far = Math.hypot(e.clientX - down.clientX, e.clientY - down.clientY);
    if (touch && far > 8) done();
    else if (!touch && far > 5) {
      drag = begin();
      if (!drag) done();
    }
  };
  const up = (e) => {
    if (e.pointerId !== down.pointerId) return;
    done();
    if (drag) drag.finish(e.type === "pointerup");
  };
  if (touch) timer = setTimeout(() => {
    drag = begin();
    if (!drag) done();
  }, 300);
  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", up);
  window.addEventListener("pointercancel", up);
}

/** The click that follows a mouse drag's release must not open the card. */
function swallowClick() {
  const stop = (e) => {
    e.preventDefault();
    e.stopPropagation();
  };
  window.addEventListener("click", stop, { capture: true, once: true });
  setTimeout(() => window.removeEventListener("click", stop, { capture: true }), 0);
}

/** Lifts `el` out of the flow under the pointer and leaves `placeholder` in its place. */
function lift(el, placeholder, down) {
  const rect = el.getBoundingClientRect();
  placeholder.classList.add("placeholder");
  placeholder.style.height = `${rect.height}px`;
  placeholder.style.width = `${rect.width}px`;
  el.before(placeholder);
  el.classList.add("dragging");
  el.style.left = `${rect.left}px`;
  el.style.top = `${rect.top}px`;
  el.style.width = `${rect.width}px`;
  return { rect, x: down.clientX, y: down.clientY };
}

function drop(el, placeholder) {
  el.classList.remove("dragging");
  el.style.left = el.style.top = el.style.width = el.style.transform = "";
  placeholder.remove();
}

/** Scrolls the board sideways and the page up and down near their edges, in
 *  animation frames, while `state.on`; `moved()` after each step. */
function autoScroll(state, scroller, moved) {
  const box = scroller.getBoundingClientRect();
  const step = () => {
    if (!state.on) return;
    const { x, y } = state.pointer;
    let dx = 0;
    let dy = 0;
    if (x < box.left + EDGE) dx = -12;
    else if (x > box.right - EDGE) dx = 12;
    if (y < EDGE) dy = -12;
    else if (y > window.innerHeight - EDGE) dy = 12;
    if (dx || dy) {
      scroller.scrollLeft += dx;
      window.scrollBy(0, dy);
      state.scroll = { x: scroller.scrollLeft - state.scroll0.x, y: window.scrollY - state.scroll0.y };
      moved();
    }
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}

function cardDrag(down, el, board, scroller, dropped) {
  performance.mark("drag-start");
  const placeholder = document.createElement("li");
  const origin = el.parentElement.closest("section.column");
  const from = { column: origin.dataset.id, index: [...el.parentElement.children].indexOf(el) };
  const home = { list: el.parentElement, next: el.nextSibling };
  // Every column's x range, and its other cards' middles as they are at the
  // start: the card goes above the first one whose middle is below the pointer.
  const columns = [...board.querySelectorAll("section.column")].map((section) => {
    const list = section.querySelector("ul.cards");
    const r = list.getBoundingClientRect();
    const mids = [...list.children].filter((li) => li !== el && li !== placeholder).map((li) => {
      const c = li.getBoundingClientRect();
      return (c.top + c.bottom) / 2;
    });
    return { section, list, left: r.left, right: r.right, mids };
  });
  // Read first, then write: lifting the card after the reads forces no layout.
  const start = lift(el, placeholder, down);
  const state = { on: true, pointer: { x: down.clientX, y: down.clientY }, scroll0: { x: scroller.scrollLeft, y: window.scrollY }, scroll: { x: 0, y: 0 } };
  let target = { column: columns.find((c) => c.section === origin), index: from.index };
  const place = () => {
    const x = state.pointer.x + state.scroll.x;
    const y = state.pointer.y + state.scroll.y;
    const column = columns.find((c) => x >= c.left - GAP && x <= c.right + GAP) || target.column;
    const index = column.mids.filter((m) => m < y).length;
    if (column === target.column && index === target.index) return;
    target = { column, index };
    const others = [...column.list.children].filter((li) => li !== el && li !== placeholder);
    column.list.insertBefore(placeholder, others[index] || null);
  };
  autoScroll(state, scroller, place);
  const api = {
    move(e) {
      state.pointer = { x: e.clientX, y: e.clientY };
      el.style.transform = `translate(${e.clientX - start.x}px, ${e.clientY - start.y}px)`;
      place();
    },
    finish(commit) {
      if (!state.on) return;
      state.on = false;
      active = null;
      const to = target;
      // The drop: the card goes where the placeholder is and the store follows
      // (the view moves it where the state says); a cancel puts it back home.
      const same = to.column.section === origin && to.index === from.index;
      const move = commit && !same;
      if (move) placeholder.replaceWith(el);
      else home.list.insertBefore(el, home.next);
      drop(el, placeholder);
      swallowClick();
      performance.mark("drag-end");
      performance.measure("drag", "drag-start", "drag-end");
      if (move) dropped(el.dataset.id, to.column.section.dataset.id, to.index);
      ended();
    },
  };
  active = api;
  return api;
}

function columnDrag(down, section, board, scroller, dropped) {
  const placeholder = document.createElement("section");
  const parent = section.parentElement;
  const all = () => [...parent.querySelectorAll(":scope > section.column")];
  const from = all().indexOf(section);
  const home = section.nextSibling;
  const mids = all().filter((s) => s !== section).map((s) => {
    const r = s.getBoundingClientRect();
    return (r.left + r.right) / 2;
  });
  const start = lift(section, placeholder, down);
  const state = { on: true, pointer: { x: down.clientX, y: down.clientY }, scroll0: { x: scroller.scrollLeft, y: window.scrollY }, scroll: { x: 0, y: 0 } };
  let index = from;
  const place = () => {
    const at = mids.filter((m) => m < state.pointer.x + state.scroll.x).length;
    if (at === index) return;
    index = at;
    const others = all().filter((s) => s !== section);
    parent.insertBefore(placeholder, others[index] || parent.querySelector(":scope > .add-column"));
  };
  autoScroll(state, scroller, place);
  const api = {
    move(e) {
      state.pointer = { x: e.clientX, y: e.clientY };
      section.style.transform = `translate(${e.clientX - start.x}px, 0)`;
      place();
    },
    finish(commit) {
      if (!state.on) return;
      state.on = false;
      active = null;
      const move = commit && index !== from;
      if (move) placeholder.replaceWith(section);
      else placeholder.parentElement.insertBefore(section, home);
      drop(section, placeholder);
      swallowClick();
      if (move) dropped(section.dataset.id, index);
      ended();
    },
  };
  active = api;
  return api;
}
