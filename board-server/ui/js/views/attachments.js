// The card dialog's attachments (§7): upload, download, delete; `upload` for comments.
import { get, api, del } from "../api.js";
import { h, fill, uid, announce } from "../h.js";
import { T } from "../text.js";
import { confirmDialog, attempt } from "./parts.js";

/** POSTs `files` as the multipart field `files`; resolves to the Attachments. */
export async function upload(path, files) {
	const form = new FormData();
	for (const file of files) form.append("files", file, file.name || "image.png");
	announce(T.uploading(files.length));
	const stored = await api("POST", path, form);
	announce(T.uploaded(stored.length));
	return stored;
}

const size = (n) => (n < 1024 ? `${n} B` : n < 1048576 ? `${Math.round(n / 1024)} KB` : `${(n / 1048576).toFixed(1)} MB`);

export function attachmentsPart(shared) {
	const path = `${shared.url}/attachments`;
	const heading = h("h3", { id: uid("att") }, T.attachmentsTitle);
	const list = h("ul", { class: "files", "aria-labelledby": heading.id });
	const alert = h("p", { class: "alert", role: "alert", hidden: true });
	const picker = h("input", { type: "file", multiple: true, id: uid("files") });
	let files = [];
	let reading = 0;

	// The comments' images count among a card's attachments (§24): listed
	// too, marked, as the comments part last drew the thread (no request).
	let images = [];
	shared.threadChanged = (thread) => {
		images = thread.flatMap((c) => c.attachments);
		draw();
	};
	function draw() {
		const rows = [...files.map(row), ...images.map(imageRow)];
		fill(list, rows.length ? rows : h("li", { class: "hint" }, T.noAttachments));
	}
	async function load() {
		const n = ++reading;
		const data = await get(path);
		if (n !== reading) return;
		files = data;
		draw();
	}
	const imageRow = (file) => h("li", { class: "row" },
		h("a", { href: file.url, download: file.originalName }, file.originalName), " ",
		h("span", { class: "hint" }, `${size(file.size)} · ${T.inAComment}`));
	const row = (file) => h("li", { class: "row" },
		h("a", { href: file.url, download: file.originalName }, file.originalName), " ",
		h("span", { class: "hint" }, size(file.size)),
		shared.ctx.canWrite ? h("button", { class: "small", "aria-label": T.deleteFile(file.originalName), on: { click: () => remove(file) } }, T.del) : null);

	async function remove(file) {
		if (!(await confirmDialog(T.deleteFileTitle(file.originalName), T.deleteFileText, T.del))) return;
		await act(async () => {
			await del(`/api/attachments/${encodeURIComponent(file.id)}`);
			announce(T.fileDeleted(file.originalName));
		});
		picker.focus();
	}
	const act = (fn) => attempt(alert, null, fn).then(() => load()).catch(shared.fail);
	picker.addEventListener("change", async () => {
		const chosen = [...picker.files];
		if (chosen.length) await act(() => upload(path, chosen));
		picker.value = "";
	});

	return {
		el: h("section", { class: "card-files", "aria-labelledby": heading.id }, heading, list, alert,
			shared.ctx.canWrite ? h("div", { class: "field" }, h("label", { for: picker.id }, T.uploadFiles), picker) : null),
		load,
		onEvent(e) {
			// An attachment's event does not name its card: read again (304 when unchanged).
			if (e.type === "attachment.created" || (e.type === "attachment.deleted" && files.some((f) => f.id === e.subject.id))) load().catch(shared.fail);
		},
	};
}
