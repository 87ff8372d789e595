// A workspace's settings (ADMIN): members, invitations, projects, webhooks.
import { get, post, patch, del, query } from "../api.js";
import { h, fill, field, inline, uid, primaryButton } from "../h.js";
import { T } from "../text.js";
import { go } from "../router.js";
import { refreshMe } from "../session.js";
import { frame, workspaceOf } from "./frame.js";
import { panel, said, attempt, timeEl, whenText, shownOnce, confirmDialog, showError, table } from "./parts.js";
import { EVENTS } from "../events.js";
import { trelloPanel } from "./trello.js";

const ROLES = ["VIEWER", "MEMBER", "ADMIN"];
const enc = encodeURIComponent;

function checkbox(text, checked, hint) {
	const input = h("input", { type: "checkbox", id: uid("c"), checked });
	const note = hint && h("p", { class: "hint indent", id: uid("hint") }, hint);
	if (note) input.setAttribute("aria-describedby", note.id);
	return { input, el: h("div", { class: "field" }, h("div", { class: "row check" }, input, h("label", { for: input.id }, text)), note) };
}

function radios(legend, choices, current) {
	const name = uid("r");
	const inputs = choices.map(([value]) => h("input", { type: "radio", name, value, checked: value === current }));
	const el = h("fieldset", {}, h("legend", {}, legend), inputs.map((input, i) => inline(input, choices[i][1])));
	return { el, value: () => inputs.find((i) => i.checked)?.value };
}

function roleSelect(current, attrs) {
	return h("select", attrs, ROLES.map((r) => h("option", { value: r, selected: r === current }, T.roles[r])));
}

function loading(p, load) {
	fill(p.body, h("p", { class: "hint" }, T.loading));
	return load().catch((e) => { fill(p.body); showError(p)(e); });
}

/** `/w/<tenant>/settings`. */
export async function settingsPage(root, route, session) {
	const main = frame(root, session, route);
	const ws = workspaceOf(session.me, route);
	if (!ws || ws.role !== "ADMIN") {
		fill(main, h("h1", {}, ws ? T.settingsTitle(ws.name) : T.settings), h("p", { class: "note" }, ws ? T.adminOnly : T.noAccess));
		return {};
	}
	const ctx = {
		tenant: ws.id,
		me: () => session.me,
		ws: () => workspaceOf(session.me, route) || { projects: [] },
		// After losing ADMIN or the workspace: read /api/me and show the page again.
		reload: async () => { await refreshMe(); go(location.pathname, true); },
	};
	const panels = [members(ctx), invitations(ctx), projects(ctx), workspaceSettings(ctx), webhooks(ctx), trelloPanel(ctx)];
	fill(main, h("h1", {}, T.settingsTitle(ws.name)),
		h("p", {}, h("a", { href: `/w/${enc(ws.id)}/labels` }, T.manageLabels)), panels.map((p) => p.el));
	await Promise.all(panels.map((p) => p.ready));
	return {};
}

function members(ctx) {
	const p = panel(T.members);
	const row = (m) => {
		const self = m.accountId === ctx.me().id;
		const select = roleSelect(m.role, { "aria-label": T.roleOf(m.name), on: { change: async () => {
			const ok = await attempt(p.alert, select, () => patch(`/api/members/${enc(m.accountId)}`, { tenantId: ctx.tenant, role: select.value }));
			if (!ok) { select.value = m.role; return; }
			m.role = select.value;
			said(p, T.roleChanged(m.name, T.roles[m.role]));
			if (self && m.role !== "ADMIN") await ctx.reload();
		} } });
		const remove = h("button", { "aria-label": T.removeMember(m.name), on: { click: async () => {
			if (!(await confirmDialog(T.removeTitle(m.name), T.removeText, T.remove))) return;
			const ok = await attempt(p.alert, remove, () => del(`/api/members/${enc(m.accountId)}${query({ tenant: ctx.tenant })}`));
			if (!ok) return;
			remove.closest("tr").remove();
			said(p, T.memberRemoved(m.name));
			if (self) await ctx.reload();
			else p.heading.focus();
		} } }, T.remove);
		return [self ? T.you(m.name) : m.name, select, remove];
	};
	p.ready = loading(p, async () => {
		const list = await get(`/api/members${query({ tenant: ctx.tenant })}`);
		fill(p.body, table([T.name, T.role, T.actions], list.map(row)));
	});
	return p;
}

function invitations(ctx) {
	const p = panel(T.invitations);
	const role = roleSelect("MEMBER", { name: "role" });
	const button = primaryButton(T.createInvitation);
	const once = h("div", {});
	const list = h("div", {});
	const form = h("form", { class: "row bottom", on: { submit: async (e) => {
		e.preventDefault();
		let made;
		if (!(await attempt(p.alert, button, async () => { made = await post("/api/invitations", { tenantId: ctx.tenant, role: role.value }); }))) return;
		fill(once, shownOnce(T.invitationLink, T.copyLink, made.url, T.invitationHint));
		await load().catch(showError(p));
	} } }, field(T.role, role), button);
	const load = async () => {
		const open = await get(`/api/invitations${query({ tenant: ctx.tenant })}`);
		if (!open.length) return fill(list, h("p", { class: "hint" }, T.noInvitations));
		fill(list, table([T.role, T.created, T.expires, T.actions], open.map((inv) => {
			const revoke = h("button", { "aria-label": T.revokeInvitation(T.roles[inv.role], whenText(inv.expiresAt)), on: { click: async () => {
				if (!(await attempt(p.alert, revoke, () => del(`/api/invitations/${enc(inv.id)}`)))) return;
				said(p, T.invitationRevoked);
				p.heading.focus();
				await load().catch(showError(p));
			} } }, T.revoke);
			return [T.roles[inv.role], timeEl(inv.createdAt), timeEl(inv.expiresAt), revoke];
		})));
	};
	p.ready = loading(p, async () => { await load(); fill(p.body, form, once, list); });
	return p;
}

function projects(ctx) {
	const p = panel(T.projects);
	const list = h("div", {});
	const item = (project) => {
		const input = h("input", { value: project.name, maxlength: 100, required: true, "aria-label": T.newNameOf(project.name) });
		const button = h("button", { type: "submit", "aria-label": T.renameProject(project.name) }, T.rename);
		return h("li", {}, h("form", { class: "row", on: { submit: async (e) => {
			e.preventDefault();
			const name = input.value.trim();
			if (!(await attempt(p.alert, button, () => patch(`/api/projects/${enc(project.id)}`, { name })))) return;
			project.name = name;
			input.setAttribute("aria-label", T.newNameOf(name));
			button.setAttribute("aria-label", T.renameProject(name));
			said(p, T.projectRenamed(name));
			await refreshMe();
		} } }, input, button));
	};
	const render = () => {
		const all = ctx.ws().projects;
		fill(list, all.length ? h("ul", { class: "plain stack" }, all.map(item)) : h("p", { class: "hint" }, T.noProjects));
	};
	const name = h("input", { name: "name", maxlength: 100, required: true, autocomplete: "off" });
	const button = primaryButton(T.createProject);
	const form = h("form", { class: "row bottom", on: { submit: async (e) => {
		e.preventDefault();
		const wanted = name.value.trim();
		if (!(await attempt(p.alert, button, () => post("/api/projects", { tenantId: ctx.tenant, name: wanted })))) return;
		name.value = "";
		await refreshMe();
		render();
		said(p, T.projectCreated(wanted));
	} } }, field(T.projectName, name), button);
	render();
	fill(p.body, list, form);
	p.ready = Promise.resolve();
	return p;
}

function workspaceSettings(ctx) {
	const p = panel(T.workspaceSettings);
	p.ready = loading(p, async () => {
		const s = await get(`/api/settings${query({ tenant: ctx.tenant })}`);
		const scope = radios(T.columnScope, [["TENANT", T.scopeTenant], ["PROJECT", T.scopeProject]], s.columnScope);
		const management = checkbox(T.columnManagement, s.columnManagement, T.columnManagementHint);
		const links = checkbox(T.crossProjectLinks, s.allowCrossProjectLinks);
		const wip = radios(T.wipLimits, [["SOFT", T.wipSoft], ["HARD", T.wipHard]], s.wipLimits);
		const button = primaryButton(T.saveSettings);
		fill(p.body, h("form", { class: "stack", on: { submit: async (e) => {
			e.preventDefault();
			const ok = await attempt(p.alert, button, () => patch("/api/settings", {
				tenantId: ctx.tenant, columnScope: scope.value(), columnManagement: management.input.checked,
				allowCrossProjectLinks: links.input.checked, wipLimits: wip.value(),
			}));
			if (ok) said(p, T.settingsSaved);
		} } }, scope.el, management.el, links.el, wip.el, h("div", {}, button)));
	});
	return p;
}

function webhooks(ctx) {
	const p = panel(T.webhooks);
	const list = h("div", {});
	const log = h("div", { id: uid("log") });
	const once = h("div", {});
	const lastDelivery = (w) => {
		if (!w.lastAttemptAt) return T.notYet;
		const what = w.lastError || (w.lastStatus ? T.httpStatus(w.lastStatus) : "");
		return [timeEl(w.lastAttemptAt), ` ${what}`, w.failingSince ? [", ", T.failingSince(whenText(w.failingSince))] : null];
	};
	const row = (w) => {
		const enabled = h("input", { type: "checkbox", checked: w.active, "aria-label": T.hookEnabled(w.url), on: { change: async () => {
			let done;
			const ok = await attempt(p.alert, enabled, async () => { done = await patch(`/api/webhooks/${enc(w.id)}`, { active: enabled.checked }); });
			if (!ok) { enabled.checked = w.active; return; }
			w.active = done.active;
			fill(last, lastDelivery(done));
			said(p, [done.active ? T.hookOn(w.url) : T.hookOff(w.url), done.skipped ? T.skipped(done.skipped) : ""].join(" ").trim());
		} } });
		const show = h("button", { "aria-label": T.hookDeliveries(w.url), "aria-controls": log.id, on: { click: async () => {
			let attempts;
			if (!(await attempt(p.alert, show, async () => { attempts = await get(`/api/webhooks/${enc(w.id)}/deliveries`); }))) return;
			for (const b of list.querySelectorAll("button[aria-expanded]")) b.setAttribute("aria-expanded", "false");
			show.setAttribute("aria-expanded", "true");
			fill(log, h("h3", {}, T.hookDeliveries(w.url)), attempts.length
				? table([T.seq, T.event, T.attempt, T.status, T.error, T.duration, T.at], attempts.map((d) =>
					[d.seq, d.type, d.attempt, d.status ?? "—", d.error || "", T.ms(d.durationMs), timeEl(d.at)]))
				: h("p", { class: "hint" }, T.noDeliveries));
		} } }, T.deliveries);
		show.setAttribute("aria-expanded", "false");
		const remove = h("button", { "aria-label": T.deleteHook(w.url), on: { click: async () => {
			if (!(await confirmDialog(T.deleteHookTitle, T.deleteHookText(w.url), T.del))) return;
			if (!(await attempt(p.alert, remove, () => del(`/api/webhooks/${enc(w.id)}`)))) return;
			fill(log);
			said(p, T.hookDeleted);
			p.heading.focus();
			await load().catch(showError(p));
		} } }, T.del);
		const events = w.events.length >= EVENTS.length ? T.allEvents : w.events.join(", ");
		const last = h("td", {}, lastDelivery(w));
		return h("tr", {}, h("td", { class: "wrap" }, w.url), h("td", { class: "wrap" }, events), h("td", {}, enabled),
			last, h("td", {}, h("div", { class: "row" }, show, remove)));
	};
	const load = async () => {
		const hooks = await get(`/api/webhooks${query({ tenant: ctx.tenant })}`);
		fill(list, hooks.length ? table([T.url, T.events, T.enabled, T.lastDelivery, T.actions], hooks.map(row)) : h("p", { class: "hint" }, T.noHooks));
	};
	const url = h("input", { type: "url", name: "url", required: true, maxlength: 2000, autocomplete: "off", placeholder: "https://" });
	const all = checkbox(T.allEvents, true);
	const boxes = EVENTS.map((ev) => h("input", { type: "checkbox", value: ev }));
	const pick = h("div", { class: "event-grid", hidden: true }, boxes.map((b) => inline(b, b.value)));
	all.input.addEventListener("change", () => { pick.hidden = all.input.checked; });
	const secret = h("input", { name: "secret", minlength: 16, maxlength: 500, autocomplete: "off", spellcheck: "false" });
	const button = primaryButton(T.addWebhook);
	const form = h("form", { class: "stack", on: { submit: async (e) => {
		e.preventDefault();
		const events = all.input.checked ? undefined : boxes.filter((b) => b.checked).map((b) => b.value);
		if (events && !events.length) {
			p.alert.textContent = T.pickEvents;
			p.alert.hidden = false;
			return boxes[0].focus();
		}
		let made;
		const body = { tenantId: ctx.tenant, url: url.value.trim(), events, secret: secret.value || undefined };
		if (!(await attempt(p.alert, button, async () => { made = await post("/api/webhooks", body); }))) return;
		form.reset();
		all.input.checked = true;
		pick.hidden = true;
		said(p, T.hookAdded);
		fill(once, shownOnce(T.webhookSecret, T.copySecret, made.secret, T.secretOnce));
		await load().catch(showError(p));
	} } }, field(T.url, url), h("fieldset", {}, h("legend", {}, T.events), all.el, pick),
	field(T.secret, secret, T.secretHint), h("div", {}, button));
	p.ready = loading(p, async () => { await load(); fill(p.body, list, log, once, form); });
	return p;
}
