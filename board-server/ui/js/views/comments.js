// The card dialog's comments (§7, §24): the thread, the composer with images, edit, delete.
import { get, post, patch, del } from "../api.js";
import { h, fill, sanitized, uid, announce } from "../h.js";
import { T } from "../text.js";
import { confirmDialog, attempt } from "./parts.js";
import { conflictBox } from "./cardtext.js";
import { upload } from "./attachments.js";
import { ago, nameOf } from "./history.js";
import { mentions } from "./mention.js";

export function commentsPart(shared) {
	const { ctx } = shared;
	const path = `${shared.url}/comments`;
	const commentPath = (id) => `/api/comments/${encodeURIComponent(id)}`;
	const people = () => ctx.members.values();
	const heading = h("h3", { id: uid("com") }, T.commentsTitle);
	const list = h("ol", { class: "comments", "aria-labelledby": heading.id });
	const alert = h("p", { class: "alert", role: "alert", hidden: true });
	const fail = (e) => { alert.textContent = e.message; alert.hidden = false; };
	const editors = new Map();
	let comments = [];
	let etag = null;
	let reading = 0;
	let shown = false;
	let saving = null; // the save in flight: its own event waits for its answer

	// One request per save: the answer is the comment as the thread shows it,
	// with the thread's new tag (api.md §22).
	async function send(method, url, body, options = {}) {
		let done;
		saving = new Promise((resolve) => { done = resolve; });
		try {
			const saved = await method(`${url}?html=true`, body, { ...options, withEtag: true });
			reading += 1; // a read sent before this answer is older
			const at = comments.findIndex((c) => c.id === saved.data.id);
			comments = at < 0 ? comments.concat([saved.data]) : comments.map((c, i) => (i === at ? saved.data : c));
			shared.threadChanged?.(comments);
			etag = saved.etag;
			fill(list, comments.map((c) => editors.get(c.id) || row(c)));
			return saved.data;
		} finally {
			saving = null;
			done();
		}
	}
	// Whether the thread shows `s` as it is (an event of our own save).
	const holds = (s) => comments.some((c) => c.id === s.id && c.updatedAt === s.updatedAt && c.content === s.content);

	async function load() {
		const n = ++reading;
		const read = await get(`${path}?html=true`, { withEtag: true });
		if (n !== reading) return null;
		comments = read.data;
		etag = read.etag;
		shared.threadChanged?.(comments);
		fill(list, comments.length ? comments.map((c) => editors.get(c.id) || row(c)) : h("li", { class: "hint" }, T.noComments));
		if (!shown) {
			shown = true;
			performance.mark("comments-shown");
			performance.measure("comments", "card-open", "comments-shown");
		}
		return read;
	}

	const mine = (c) => c.authorId && ctx.me && c.authorId === ctx.me.id;
	function row(c) {
		const author = h("strong", { id: uid("by") }, nameOf(ctx, c.authorId));
		const time = h("time", { datetime: c.createdAt, title: new Date(c.createdAt).toLocaleString() }, ago(c.createdAt));
		const actions = [];
		if (ctx.canWrite && mine(c)) actions.push(h("button", { class: "small", "aria-describedby": author.id, on: { click: () => edit(c, li) } }, T.edit));
		if (ctx.canWrite && (mine(c) || ctx.ws.role === "ADMIN")) {
			actions.push(h("button", { class: "small", "aria-describedby": author.id, on: { click: () => remove(c) } }, T.del));
		}
		const li = h("li", { class: "comment", data: { id: c.id } },
			h("div", { class: "comment-head" }, author, " ", time, c.updatedAt !== c.createdAt ? h("span", { class: "hint" }, ` · ${T.edited}`) : null,
				actions.length ? h("span", { class: "item-actions" }, actions) : null),
			sanitized(h("div", { class: "markdown" }), c.contentHtml || ""));
		return li;
	}

	// Saved with If-Match of the thread's tag.
	function edit(c, li) {
		const state = { base: c.content, etag };
		const text = h("textarea", { rows: 4, id: uid("edit") }, c.content);
		const conflict = h("div");
		const stop = () => {
			editors.delete(c.id);
			const now = comments.find((x) => x.id === c.id);
			if (now) li.replaceWith(row(now));
			else li.remove();
			const back = now && list.querySelector(`li[data-id="${CSS.escape(c.id)}"] button`);
			(back || composer).focus();
		};
		async function save(value) {
			for (let i = 0; i < 3; i += 1) {
				try {
					await send(patch, commentPath(c.id), { content: value }, { ifMatch: state.etag });
					announce(T.commentSaved);
					return stop();
				} catch (e) {
					if (e.status !== 412) return fail(e);
				}
				await load();
				const now = comments.find((x) => x.id === c.id);
				if (!now) return fail({ message: T.commentGone });
				if (now.content !== state.base) {
					return fill(conflict, conflictBox(T.theComment, now.content, value,
						() => { Object.assign(state, { base: now.content, etag }); fill(conflict); save(text.value); },
						() => { stop(); announce(T.keptTheirs); }));
				}
				state.etag = etag;
			}
			return fail({ message: T.keepsChanging });
		}
		const form = h("form", { class: "stack", on: { submit: (e) => {
			e.preventDefault();
			alert.hidden = true;
			if (text.value.trim() === state.base.trim()) return stop();
			if (text.value.trim()) save(text.value);
		} } },
		h("label", { for: text.id, class: "visually-hidden" }, T.editComment), mentions(text, people), conflict,
		h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, T.save),
			h("button", { on: { click: stop } }, T.cancel)));
		text.addEventListener("keydown", (e) => {
			if (e.key === "Escape" && text.value === state.base) { e.preventDefault(); stop(); }
		});
		editors.set(c.id, li);
		fill(li, form);
		text.focus();
	}

	async function remove(c) {
		if (!(await confirmDialog(T.deleteCommentTitle, T.deleteCommentText, T.deleteComment))) return;
		if (await attempt(alert, null, () => del(commentPath(c.id)))) announce(T.commentDeleted);
		await load().catch(fail);
		composer.focus();
	}

	// The composer: images still named in the text when sent are bound.
	const composer = h("textarea", { rows: 3, id: uid("say") });
	const picker = h("input", { type: "file", multiple: true, accept: "image/png,image/jpeg,image/gif,image/webp", id: uid("img") });
	let images = [];
	async function attach(files) {
		if (!files.length) return;
		await attempt(alert, null, async () => {
			const stored = await upload(`${path}/uploads`, files);
			images = images.concat(stored);
			const at = composer.selectionEnd;
			const v = composer.value;
			const md = stored.map((a) => `![${a.originalName.replace(/[[\]]/g, "")}](${a.url})`).join("\n");
			composer.value = `${v.slice(0, at)}${at && v[at - 1] !== "\n" ? "\n" : ""}${md}\n${v.slice(at)}`;
		});
		composer.focus();
	}
	composer.addEventListener("paste", (e) => {
		const files = [...e.clipboardData.files];
		if (files.length) { e.preventDefault(); attach(files); }
	});
	composer.addEventListener("dragover", (e) => { if (e.dataTransfer.types.includes("Files")) e.preventDefault(); });
	composer.addEventListener("drop", (e) => {
		if (!e.dataTransfer.files.length) return;
		e.preventDefault();
		attach([...e.dataTransfer.files]);
	});
	picker.addEventListener("change", () => { attach([...picker.files]); picker.value = ""; });
	const hint = h("p", { class: "hint", id: uid("hint") }, T.commentHint);
	composer.setAttribute("aria-describedby", hint.id);
	const form = ctx.canWrite ? h("form", { class: "stack composer", on: { submit: async (e) => {
		e.preventDefault();
		const content = composer.value;
		if (!content.trim()) return composer.focus();
		const sent = await attempt(alert, null, async () => {
			await send(post, path, { content, attachmentIds: images.filter((a) => content.includes(a.url)).map((a) => a.id) });
			composer.value = "";
			images = [];
			announce(T.commentAdded);
		});
		if (!sent) await load().catch(fail);
	} } },
	h("label", { for: composer.id }, T.writeComment), mentions(composer, people),
	h("div", { class: "row" }, hint, h("label", { for: picker.id, class: "visually-hidden" }, T.addImages), picker),
	h("div", {}, h("button", { type: "submit", class: "primary" }, T.comment))) : null;

	return {
		el: h("section", { class: "card-comments", "aria-labelledby": heading.id }, heading, list, alert, form),
		load,
		onEvent(e) {
			const s = e.subject || {};
			if ((e.type === "comment.created" || e.type === "comment.updated") && s.cardId === shared.id) {
				const check = () => { if (!holds(s)) load().catch(fail); };
				if (saving) saving.finally(check);
				else check();
			}
			if (e.type === "comment.deleted" && comments.some((c) => c.id === s.id)) load().catch(fail);
		},
	};
}
