// Settings → "Import from Trello" (api.md §28): the export's dry run first,
// with what it would bring and whom it could not map, then the import.
import { api, get, query } from "../api.js";
import { h, fill, field, primaryButton } from "../h.js";
import { T } from "../text.js";
import { boardPath } from "../router.js";
import { panel, said, attempt, table } from "./parts.js";

/** The panel for workspace `ctx.tenant` of the settings page. */
export function trelloPanel(ctx) {
	const p = panel(T.trelloImport);
	const file = h("input", { type: "file", name: "file", accept: ".json,application/json", required: true });
	const check = primaryButton(T.trelloCheck);
	const result = h("div", { class: "stack" });
	let mapping = [];
	file.addEventListener("change", () => fill(result));
	const send = (dryRun) => {
		const form = new FormData();
		form.append("tenantId", ctx.tenant);
		const members = Object.fromEntries(mapping.filter((m) => m.select.value).map((m) => [m.id, m.select.value]));
		if (Object.keys(members).length) form.append("members", JSON.stringify(members));
		if (dryRun) form.append("dryRun", "true");
		form.append("file", file.files[0]);
		return api("POST", "/api/imports/trello", form);
	};
	const form = h("form", { class: "stack", on: { submit: async (e) => {
		e.preventDefault();
		let found;
		let people;
		const ok = await attempt(p.alert, check, async () => {
			found = await send(true);
			people = await get(`/api/members${query({ tenant: ctx.tenant })}`);
		});
		if (ok) show(found, people);
	} } }, field(T.trelloFile, file, T.trelloFileHint), h("div", { class: "row" }, check));
	function show(s, people) {
		mapping = s.unmappedMembers.map((m) => ({ m, id: m.id, select: h("select", { "aria-label": T.trelloMapOf(m.fullName || m.username) },
			h("option", { value: "" }, T.trelloUnmapped), people.map((x) => h("option", { value: x.accountId }, x.name))) }));
		const go = h("button", { type: "button", class: "primary", on: { click: async () => {
			let done;
			if (!(await attempt(p.alert, go, async () => { done = await send(false); }))) return;
			mapping = [];
			fill(result, h("p", {}, h("a", { href: boardPath(ctx.tenant) }, T.trelloSeeBoard)));
			said(p, T.trelloImported(done.board.name, done.cards.created));
		} } }, T.trelloImportNow);
		fill(result, h("h3", {}, T.trelloWouldBring(s.board.name)), table([T.trelloWhat, T.trelloCount], [
			[T.trelloColumns, T.trelloMatched(s.columns.matched, s.columns.created)],
			[T.trelloCards, T.trelloCardCount(s.cards.created, s.cards.archived, s.cards.skipped)],
			[T.labels, T.trelloMatched(s.labels.matched, s.labels.created)],
			[T.trelloItems, String(s.checklistItems)],
			[T.trelloComments, String(s.comments)],
			[T.trelloMoves, String(s.historyEntries)],
			[T.trelloLinks, String(s.attachmentLinks)],
		]),
		mapping.length ? [h("p", {}, T.trelloMapLead), table([T.trelloMember, T.trelloAccount],
			mapping.map(({ m, select }) => [`${m.fullName || m.username} (@${m.username})`, select]))] : null,
		s.warnings.length ? h("ul", {}, s.warnings.map((w) => h("li", {}, w))) : null,
		h("div", { class: "row" }, go));
	}
	fill(p.body, h("p", { class: "hint" }, T.trelloLead), form, result);
	p.ready = Promise.resolve();
	return p;
}
