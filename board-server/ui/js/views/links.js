// The card dialog's links (§8): read from this card's side; inverse types swap the ids.
import { get, post, del, query } from "../api.js";
import { h, fill, uid, announce } from "../h.js";
import { T } from "../text.js";
import { cardPath } from "../router.js";
import { attempt } from "./parts.js";

// The six types of the form: [label, kind, inverse].
const TYPES = [["BLOCKS", 0], ["BLOCKS", 1], ["PARENT", 0], ["PARENT", 1], ["GENERATED", 0], ["RELATED", 0]]
	.map(([kind, inverse]) => [T.kinds[kind][inverse], kind, inverse === 1]);

export function linksPart(shared) {
	const { ctx, id } = shared;
	const path = `${shared.url}/relations`;
	const heading = h("h3", { id: uid("links") }, T.linksTitle);
	const list = h("ul", { class: "links", "aria-labelledby": heading.id });
	const alert = h("p", { class: "alert", role: "alert", hidden: true });
	const titles = new Map();
	let links = [];
	let reading = 0;

	const title = async (other) => {
		const tile = ctx.store.cards.get(other);
		if (tile) return tile.title;
		if (!titles.has(other)) titles.set(other, get(`/api/cards/${encodeURIComponent(other)}`).then((c) => c.title, () => T.unseenCard));
		return titles.get(other);
	};

	async function load() {
		const n = ++reading;
		const data = await get(path);
		const rows = await Promise.all(data.map(async (link) => {
			const outgoing = link.sourceId === id;
			const other = outgoing ? link.targetId : link.sourceId;
			return { link, other, kind: T.kinds[link.kind][outgoing ? 0 : 1], title: await title(other) };
		}));
		if (n !== reading) return;
		links = data;
		fill(list, rows.length ? rows.map(row) : h("li", { class: "hint" }, T.noLinks));
	}
	const row = ({ link, other, kind, title: t }) => h("li", { class: "row" },
		`${kind} `, h("a", { href: cardPath(ctx.ws.id, other) }, t),
		ctx.canWrite ? h("button", { class: "small", "aria-label": T.removeLink(kind, t), on: { click: () => act(async () => {
			await del(`/api/relations/${encodeURIComponent(link.id)}`);
			announce(T.linkRemoved);
			search.focus();
		}) } }, T.remove) : null);

	const act = (fn) => attempt(alert, null, fn).then(() => load()).catch(shared.fail);

	const type = h("select", { id: uid("kind") }, TYPES.map(([label], i) => h("option", { value: i }, label)));
	const search = h("input", { type: "search", id: uid("find"), autocomplete: "off", maxlength: 200 });
	const found = h("ul", { class: "found", "aria-label": T.cardsFound, hidden: true });
	let asked = 0;
	async function find() {
		const q = search.value.trim();
		if (!q) return;
		const mine = ++asked;
		await attempt(alert, null, async () => {
			const answer = await get(`/api/search${query({ tenant: ctx.ws.id, q })}`);
			if (mine !== asked) return;
			fill(found, answer.results.length ? answer.results.map(({ card }) => h("li", {},
				h("button", { class: "link", on: { click: () => link(card) } },
					card.title, card.id === id ? ` ${T.thisCard}` : ""))) : h("li", { class: "hint" }, T.noResults));
			found.hidden = false;
		});
	}
	function link(card) {
		const [label, kind, inverse] = TYPES[type.value];
		const [source, target] = inverse ? [card.id, id] : [id, card.id];
		return act(async () => {
			await post(`/api/cards/${encodeURIComponent(source)}/relations`, { targetId: target, kind });
			announce(T.linked(label, card.title));
			found.hidden = true;
			search.value = "";
			search.focus();
		});
	}
	const form = ctx.canWrite ? h("form", { class: "stack", on: { submit: (e) => { e.preventDefault(); find(); } } },
		h("div", { class: "row bottom" },
			h("div", { class: "field" }, h("label", { for: type.id }, T.linkType), type),
			h("div", { class: "field" }, h("label", { for: search.id }, T.findCard), search),
			h("button", { type: "submit" }, T.search)),
		found) : null;

	return {
		el: h("section", { class: "card-links", "aria-labelledby": heading.id }, heading, list, alert, form),
		load,
		onEvent(e) {
			const s = e.subject || {};
			const ours = e.type === "relation.created" ? s.sourceId === id || s.targetId === id : e.type === "relation.deleted" && links.some((l) => l.id === s.id);
			if (ours) load().catch(shared.fail);
		},
	};
}
