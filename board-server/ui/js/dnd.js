// Drag and drop with pointer events, mouse and touch alike.

const GAP = 8;
const EDGE = 48;
let active = null;
const idle = [];

/** Whether a drag is under way (views hold their re-renders until it ends). */
export function dragging() {
	return active !== null;
}

/** `fn()` after every drag; returns what stops it. */
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

/** Makes `li.card`s draggable: `drop(cardId, columnId, index among the others)`. */
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
		drag?.finish(e.type === "pointerup");
	};
	if (touch) timer = setTimeout(() => {
		drag = begin();
		if (!drag) done();
	}, 300);
	window.addEventListener("pointermove", move);
	window.addEventListener("pointerup", up);
	window.addEventListener("pointercancel", up);
}

function swallowClick() {
	const stop = (e) => {
		e.preventDefault();
		e.stopPropagation();
	};
	window.addEventListener("click", stop, { capture: true, once: true });
	setTimeout(() => window.removeEventListener("click", stop, { capture: true }), 0);
}

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

// `place(state)` after each move or scroll; `end(commit)` puts `el` back, returns what follows.
function lift(el, placeholder, down, scroller, sideways, place, end) {
	const rect = el.getBoundingClientRect();
	placeholder.classList.add("placeholder");
	placeholder.style.height = `${rect.height}px`;
	placeholder.style.width = `${rect.width}px`;
	el.before(placeholder);
	el.classList.add("dragging");
	el.style.left = `${rect.left}px`;
	el.style.top = `${rect.top}px`;
	el.style.width = `${rect.width}px`;
	const state = { on: true, pointer: { x: down.clientX, y: down.clientY }, scroll0: { x: scroller.scrollLeft, y: window.scrollY }, scroll: { x: 0, y: 0 } };
	autoScroll(state, scroller, () => place(state));
	active = {
		move(e) {
			state.pointer = { x: e.clientX, y: e.clientY };
			el.style.transform = `translate(${e.clientX - down.clientX}px, ${sideways ? 0 : e.clientY - down.clientY}px)`;
			place(state);
		},
		finish(commit) {
			if (!state.on) return;
			state.on = false;
			active = null;
			const after = end(commit);
			el.classList.remove("dragging");
			el.style.left = el.style.top = el.style.width = el.style.transform = "";
			placeholder.remove();
			swallowClick();
			after();
			ended();
		},
	};
	return active;
}

function cardDrag(down, el, board, scroller, dropped) {
	performance.mark("drag-start");
	const placeholder = document.createElement("li");
	const origin = el.parentElement.closest("section.column");
	const from = { column: origin.dataset.id, index: [...el.parentElement.children].indexOf(el) };
	const home = { list: el.parentElement, next: el.nextSibling };
	// The card goes above the first middle below the pointer.
	const columns = [...board.querySelectorAll("section.column")].map((section) => {
		const list = section.querySelector("ul.cards");
		const r = list.getBoundingClientRect();
		const mids = [...list.children].filter((li) => li !== el && li !== placeholder).map((li) => {
			const c = li.getBoundingClientRect();
			return (c.top + c.bottom) / 2;
		});
		return { section, list, left: r.left, right: r.right, mids };
	});
	let target = { column: columns.find((c) => c.section === origin), index: from.index };
	const place = (state) => {
		const x = state.pointer.x + state.scroll.x;
		const y = state.pointer.y + state.scroll.y;
		const column = columns.find((c) => x >= c.left - GAP && x <= c.right + GAP) || target.column;
		const index = column.mids.filter((m) => m < y).length;
		if (column === target.column && index === target.index) return;
		target = { column, index };
		const others = [...column.list.children].filter((li) => li !== el && li !== placeholder);
		column.list.insertBefore(placeholder, others[index] || null);
	};
	// Read first, then write: lifting the card after the reads forces no layout.
	return lift(el, placeholder, down, scroller, false, place, (commit) => {
		const to = target;
		const move = commit && !(to.column.section === origin && to.index === from.index);
		if (move) placeholder.replaceWith(el);
		else home.list.insertBefore(el, home.next);
		return () => {
			performance.mark("drag-end");
			performance.measure("drag", "drag-start", "drag-end");
			if (move) dropped(el.dataset.id, to.column.section.dataset.id, to.index);
		};
	});
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
	let index = from;
	const place = (state) => {
		const at = mids.filter((m) => m < state.pointer.x + state.scroll.x).length;
		if (at === index) return;
		index = at;
		const others = all().filter((s) => s !== section);
		parent.insertBefore(placeholder, others[index] || parent.querySelector(":scope > .add-column"));
	};
	return lift(section, placeholder, down, scroller, true, place, (commit) => {
		const move = commit && index !== from;
		if (move) placeholder.replaceWith(section);
		else placeholder.parentElement.insertBefore(section, home);
		return () => { if (move) dropped(section.dataset.id, index); };
	});
}
