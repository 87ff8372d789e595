// The flow page (api.md §29): §13's metrics as SVG charts, each with its table.
import { get, query } from "../api.js";
import { h, fill, field, uid } from "../h.js";
import { T } from "../text.js";
import { cardPath } from "../router.js";
import { stacked, bars, spans, duration } from "../charts.js";
import { frame, workspaceOf } from "./frame.js";
import { attempt, table } from "./parts.js";

const DAY = 864e5;
const isoDay = (t) => new Date(t).toISOString().slice(0, 10);

/** `/w/<tenant>/flow` and `/w/<tenant>/p/<project>/flow`. */
export async function flowPage(root, route, session) {
	const main = frame(root, session, route);
	const ws = workspaceOf(session.me, route);
	if (!ws) {
		fill(main, h("h1", {}, T.flow), h("p", { class: "note" }, T.noAccess));
		return {};
	}
	const project = ws.projects.find((p) => p.id === route.project);
	const heading = h("h1", {}, T.flowTitle(project ? project.name : ws.name));
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
	const charts = h("div", { class: "flow-charts", "aria-live": "polite", "aria-busy": "false" });
	const windowPick = h("select", { on: { change: () => { dates.hidden = windowPick.value !== "dates"; if (windowPick.value !== "dates") load(); } } },
		[14, 30, 90].map((n) => h("option", { value: n, selected: n === 30 }, T.lastDays(n))), h("option", { value: "dates" }, T.twoDates));
	const from = h("input", { type: "date", required: true, value: isoDay(Date.now() - 29 * DAY) });
	const to = h("input", { type: "date", required: true, value: isoDay(Date.now()) });
	const dates = h("form", { class: "row bottom", hidden: true, on: { submit: (e) => { e.preventDefault(); load(); } } },
		field(T.fromDay, from), field(T.toDay, to), h("button", { type: "submit" }, T.show));
	fill(main, h("div", { class: "flow-page" }, heading,
		h("div", { class: "row bottom" }, field(T.window, windowPick), dates), alert, charts));

	const base = { tenant: ws.id, project: route.project };
	let asked = 0;
	async function load() {
		const mine = ++asked;
		const since = windowPick.value === "dates" ? from.value : isoDay(Date.now() - (Number(windowPick.value) - 1) * DAY);
		// Both days included: the window ends at the start of the day after `to`.
		const until = windowPick.value === "dates" ? isoDay(new Date(`${to.value}T00:00:00Z`).getTime() + DAY) : undefined;
		charts.setAttribute("aria-busy", "true");
		await attempt(alert, null, async () => {
			const [flow, columns] = await Promise.all([get(`/api/flow${query({ ...base, since, until })}`),
				get(`/api/columns${query(base)}`)]);
			if (mine === asked) fill(charts, draw(flow, columns, ws));
		});
		charts.setAttribute("aria-busy", "false");
	}
	await load();
	return {};
}

// One `<section>` per chart: heading, picture (or why there is none), numbers.
function figure(title, picture, empty, numbers) {
	const heading = h("h2", { id: uid("fig") }, title);
	// The numbers scroll: the keyboard reaches them, and they have a name.
	Object.assign(numbers, { tabIndex: 0 });
	numbers.setAttribute("role", "region");
	numbers.setAttribute("aria-label", T.numbersOf(title));
	return h("section", { class: "panel figure", "aria-labelledby": heading.id }, heading,
		empty ? h("p", { class: "hint" }, empty) : [picture, numbers]);
}

function draw(flow, columns, ws) {
	const days = flow.cumulativeFlow.map((d) => d.day);
	const accent = new Map(columns.map((c) => [c.name, c.accent]));
	const names = flow.columns.filter((c) => c.columnId).map((c) => c.name);
	const cfdEmpty = flow.cumulativeFlow.every((d) => Object.values(d.counts).every((n) => !n));
	// The done column at the bottom, as cards settle there.
	const series = [...names].reverse().map((name) => ({ name, accent: accent.get(name) || "slate",
		values: flow.cumulativeFlow.map((d) => d.counts[name] || 0) }));
	const cfd = figure(T.cfd, stacked(T.cfdLabel(days.length), days, series), cfdEmpty ? T.emptyCfd : null,
		table([T.day, ...names], flow.cumulativeFlow.map((d) => [d.day, ...names.map((n) => String(d.counts[n] || 0))])));

	const times = [[T.leadTime, flow.leadTime], [T.cycleTime, flow.cycleTime]];
	const timesEmpty = times.every(([, t]) => !t.count);
	const timeRows = times.filter(([, t]) => t.count).map(([name, t]) => ({ name, value: t.p85Seconds, accent: "blue",
		marks: [{ at: t.medianSeconds, name: T.median }, { at: t.p85Seconds, name: T.p85 }] }));
	const lead = figure(T.leadCycle, spans(T.leadCycleLabel, timeRows, duration), timesEmpty ? T.emptyDone : null,
		table([T.measure, T.cardsCount, T.median, T.p85, T.mean], times.map(([name, t]) =>
			[name, String(t.count), duration(t.medianSeconds), duration(t.p85Seconds), duration(t.meanSeconds)])));

	const done = flow.throughput.map((d) => d.done);
	const through = figure(T.throughput, bars(T.throughputLabel(done.reduce((a, b) => a + b, 0)), flow.throughput.map((d) => d.day), done),
		done.every((n) => !n) ? T.emptyDone : null,
		table([T.day, T.finished], flow.throughput.map((d) => [d.day, String(d.done)])));

	const order = new Map(names.map((n, i) => [n, i]));
	const aging = [...flow.aging].sort((a, b) => (order.get(a.columnName) ?? 99) - (order.get(b.columnName) ?? 99) || b.ageSeconds - a.ageSeconds);
	const age = figure(T.aging, spans(T.agingLabel(aging.length), aging.map((c) => ({ name: c.title, value: c.ageSeconds,
		accent: accent.get(c.columnName), marks: [] })), duration), aging.length ? null : T.emptyAging,
	table([T.cardTitle, T.column, T.age, T.inColumn], aging.map((c) => [h("a", { href: cardPath(ws.id, c.cardId) }, c.title),
		c.columnName, duration(c.ageSeconds), duration(c.inColumnSeconds)])));
	return [cfd, lead, through, age];
}
