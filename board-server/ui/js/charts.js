// Small SVG charts for the flow page (api.md §29): drawn from numbers, text as text.

const NS = "http://www.w3.org/2000/svg";
export const W = 640;
export const H = 220;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

/** An SVG element; children may be elements or text. */
export function s(tag, attrs = {}, ...children) {
	const el = document.createElementNS(NS, tag);
	for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
	for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
	return el;
}

/** An `<svg role="img">` named `label`, `height` units tall. */
export const chart = (label, height = H) => s("svg", { viewBox: `0 0 ${W} ${height}`, role: "img", "aria-label": label, class: "chart" });

/** A round top for an axis: 1, 2 or 5 times a power of ten, at least `max`. */
export function niceMax(max) {
	if (max <= 0) return 1;
	const p = 10 ** Math.floor(Math.log10(max));
	return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= max);
}

// The y axis (0..top, three ticks) and the x labels of `days` (first, middle, last).
function axes(svg, top, days, height = H, fmt = String) {
	const bottom = height - PAD.bottom;
	const y = (v) => bottom - (v / top) * (bottom - PAD.top);
	for (const v of [0, top / 2, top]) {
		svg.append(s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }),
			s("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, fmt(v)));
	}
	const x = (i) => PAD.left + (days.length < 2 ? 0 : (i * (W - PAD.left - PAD.right)) / (days.length - 1));
	const marks = [...new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])].filter((i) => i >= 0);
	for (const i of marks) {
		svg.append(s("text", { x: x(i), y: height - 8, "text-anchor": i === 0 ? "start" : i === days.length - 1 ? "end" : "middle", class: "tick" }, days[i]));
	}
	return { x, y };
}

/** Stacked bands: `series` = [{name, accent, values}] bottom first, one value per day. */
export function stacked(label, days, series) {
	const svg = chart(label);
	const totals = days.map((_, i) => series.reduce((sum, band) => sum + band.values[i], 0));
	const { x, y } = axes(svg, niceMax(Math.max(...totals)), days);
	const below = days.map(() => 0);
	for (const band of series) {
		const top = below.map((b, i) => b + band.values[i]);
		const points = [...top.map((v, i) => `${x(i)},${y(v)}`), ...below.map((v, i) => `${x(i)},${y(v)}`).reverse()];
		svg.append(s("polygon", { points: points.join(" "), class: `band accent-${band.accent}` }, s("title", {}, band.name)));
		top.forEach((v, i) => { below[i] = v; });
	}
	return svg;
}

/** One bar per day. */
export function bars(label, days, values) {
	const svg = chart(label);
	const { x, y } = axes(svg, niceMax(Math.max(...values)), days);
	const step = (W - PAD.left - PAD.right) / Math.max(days.length, 1);
	values.forEach((v, i) => {
		if (!v) return;
		const cx = days.length < 2 ? PAD.left + step / 2 : x(i);
		svg.append(s("rect", { x: cx - step * 0.35, y: y(v), width: step * 0.7, height: y(0) - y(v), class: "bar" }, s("title", {}, `${days[i]}: ${v}`)));
	});
	return svg;
}

/** Horizontal bars `rows` = [{name, value, accent?, marks: [{at, name}]}] on one axis, `fmt` for values. */
export function spans(label, rows, fmt) {
	const row = 34;
	const height = PAD.top + rows.length * row + PAD.bottom;
	const svg = chart(label, height);
	const top = niceMax(Math.max(...rows.flatMap((r) => [r.value, ...(r.marks || []).map((m) => m.at)])));
	const left = 150;
	const x = (v) => left + (v / top) * (W - left - PAD.right);
	for (const v of [0, top / 2, top]) {
		svg.append(s("line", { x1: x(v), x2: x(v), y1: PAD.top, y2: height - PAD.bottom, class: "grid" }),
			s("text", { x: x(v), y: height - 8, "text-anchor": v === 0 ? "start" : v === top ? "end" : "middle", class: "tick" }, fmt(v)));
	}
	rows.forEach((r, i) => {
		const y0 = PAD.top + i * row;
		const name = r.name.length > 19 ? `${r.name.slice(0, 18)}…` : r.name;
		const parts = [s("text", { x: left - 8, y: y0 + row / 2 + 4, "text-anchor": "end", class: "tick name" }, name),
			s("rect", { x: left, y: y0 + 8, width: Math.max(x(r.value) - left, 1), height: row - 16, class: r.accent ? `bar accent-${r.accent}` : "bar" },
				s("title", {}, `${r.name}: ${fmt(r.value)}`))];
		for (const m of r.marks || []) {
			parts.push(s("line", { x1: x(m.at), x2: x(m.at), y1: y0 + 3, y2: y0 + row - 3, class: "mark" }, s("title", {}, `${m.name}: ${fmt(m.at)}`)));
		}
		svg.append(s("g", {}, parts));
	});
	return svg;
}

/** "3 d 4 h", "5 h 10 min", "42 s" for a number of seconds. */
export function duration(seconds) {
	if (seconds === null || seconds === undefined) return "—";
	const d = Math.floor(seconds / 86400);
	const hours = Math.floor((seconds % 86400) / 3600);
	const min = Math.floor((seconds % 3600) / 60);
	if (d) return hours ? `${d} d ${hours} h` : `${d} d`;
	if (hours) return min ? `${hours} h ${min} min` : `${hours} h`;
	if (min) return `${min} min`;
	// Under 10 s, two significant digits: an axis of short times reads
	// "0 s, 0.25 s, 0.5 s", not "0 s" three times.
	return seconds < 10 ? `${Number(seconds.toPrecision(2))} s` : `${Math.round(seconds)} s`;
}
