// The settings of a workspace (contract §25, ADMIN): members, invitations,
// projects, the settings of §4 and §20, and webhooks (§18). Also the small
// pieces the account and archived pages share.
import { get, post, patch, del, query } from "../api.js";
import { h, fill, field, uid, announce, openDialog } from "../h.js";
import { T } from "../text.js";
import { go } from "../router.js";
import { refreshMe } from "../app.js";
import { frame, workspaceOf } from "./frame.js";
import { refusal } from "./signin.js";

const ROLES = ["VIEWER", "MEMBER", "ADMIN"];
// The event types a webhook may take (board-core's WEBHOOK_EVENTS).
const EVENTS = [
  "column.created", "column.updated", "columns.reordered", "column.deleted",
  "card.created", "card.updated", "card.moved", "card.deleted", "comment.created",
  "comment.updated", "comment.deleted", "attachment.created", "attachment.deleted",
  "relation.created", "relation.deleted", "settings.updated", "cards.repositioned",
  "card.archived", "card.restored", "label.created", "label.updated", "label.deleted",
  "checklist.created", "checklist.updated", "checklist.deleted", "member.added",
  "member.updated", "member.removed", "project.created", "project.updated",
];
const enc = encodeURIComponent;

/** A `<section class="panel">` with its heading, an alert, a status line and a body. */
export function panel(title) {
  const heading = h("h2", { id: uid("h"), tabindex: "-1" }, title);
  const alert = h("p", { role: "alert", class: "alert", hidden: true });
  const status = h("p", { class: "hint", hidden: true });
  const body = h("div", { class: "stack" });
  const el = h("section", { class: "panel", "aria-labelledby": heading.id }, heading, alert, status, body);
  return { el, heading, alert, status, body };
}

/** Shows `text` in the panel's status line and says it through the live region. */
export function said(p, text) {
  p.status.textContent = text;
  p.status.hidden = false;
  announce(text);
}

/** Runs `fn` with `button` disabled; a refusal goes to `alert`. True when it worked. */
export async function attempt(alert, button, fn) {
  alert.hidden = true;
  if (button) button.disabled = true;
  try {
    await fn();
    return true;
  } catch (e) {
    alert.textContent = refusal(e);
    alert.hidden = false;
    return false;
  } finally {
    if (button) button.disabled = false;
  }
}

/** A `<time>` for an RFC 3339 instant, or "Never" for null. */
export function timeEl(iso) {
  if (!iso) return T.never;
  const text = new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return h("time", { datetime: iso }, text);
}

/** The text of a `<time>` (for accessible names). */
export function whenText(iso) {
  const t = timeEl(iso);
  return typeof t === "string" ? t : t.textContent;
}

/** A secret shown once: a read-only input and a button that copies it. */
export function shownOnce(label, copyLabel, value, hint) {
  const input = h("input", { readonly: true, value, class: "once", spellcheck: "false" });
  const copy = h("button", { type: "button", on: { click: async () => {
    try {
      await navigator.clipboard.writeText(input.value);
      announce(T.copied);
    } catch {
      input.focus();
      input.select();
      announce(T.copyByHand);
    }
  } } }, copyLabel);
  const box = h("div", { class: "row bottom" }, field(label, input, hint), copy);
  setTimeout(() => { input.focus(); input.select(); });
  return box;
}

/** Asks in a modal `<dialog>`; resolves to true when `yes` was chosen. */
export function confirmDialog(title, text, yes) {
  return new Promise((resolve) => {
    const heading = h("h2", { id: uid("dlg") }, title);
    const dialog = h("dialog", { "aria-labelledby": heading.id },
      h("form", { method: "dialog" }, heading, h("p", {}, text), h("div", { class: "actions" },
        h("button", { value: "cancel", autofocus: true }, T.cancel),
        h("button", { value: "yes", class: "danger" }, yes))));
    openDialog(dialog, (value) => resolve(value === "yes"));
  });
}

/** A checkbox with its label after it. */
function checkbox(text, checked, hint) {
  const input = h("input", { type: "checkbox", id: uid("c"), checked });
  const note = hint && h("p", { class: "hint indent", id: uid("hint") }, hint);
  if (note) input.setAttribute("aria-describedby", note.id);
  return { input, el: h("div", { class: "field" }, h("div", { class: "row check" }, input, h("label", { for: input.id }, text)), note) };
}

/** A fieldset of radio buttons; `value()` is the checked one's. */
function radios(legend, choices, current) {
  const name = uid("r");
  const inputs = choices.map(([value]) => h("input", { type: "radio", name, value, id: uid("r"), checked: value === current }));
  const el = h("fieldset", {}, h("legend", {}, legend), inputs.map((input, i) =>
    h("div", { class: "field inline" }, input, h("label", { for: input.id }, choices[i][1]))));
  return { el, value: () => (inputs.find((i) => i.checked) || {}).value };
}

/** A table with column headings and rows. */
function table(headings, rows) {
  return h("div", { class: "table-scroll" }, h("table", {},
    h("thead", {}, h("tr", {}, headings.map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, rows)));
}

function roleSelect(current, attrs) {
  return h("select", attrs, ROLES.map((r) => h("option", { value: r, selected: r === current }, T.roles[r])));
}

/** A handler for a failed read: the refusal shows in the panel's alert. */
export const showError = (p) => (e) => { p.alert.textContent = refusal(e); p.alert.hidden = false; };

/** Loads a panel's data; a failure shows in its alert. */
function loading(p, load) {
  fill(p.body, h("p", { class: "hint" }, T.loading));
  return load().catch((e) => { fill(p.body); showError(p)(e); });
}

/** `/w/<tenant>/settings`. */
export async function settingsPage(root, route, session) {
  const main = frame(root, session, route);
  const ws = workspaceOf(session.me, route);
  if (!ws) {
    fill(main, h("h1", {}, T.settings), h("p", { class: "note" }, T.noAccess));
    return {};
  }
  if (ws.role !== "ADMIN") {
    fill(main, h("h1", {}, T.settingsTitle(ws.name)), h("p", { class: "note" }, T.adminOnly));
    return {};
  }
  const ctx = {
    tenant: ws.id,
    me: () => session.me,
    ws: () => workspaceOf(session.me, route) || { projects: [] },
    // After losing ADMIN or the workspace: read /api/me and show the page again.
    reload: async () => { await refreshMe(); go(location.pathname, true); },
  };
  const panels = [members(ctx), invitations(ctx), projects(ctx), workspaceSettings(ctx), webhooks(ctx)];
  fill(main, h("h1", {}, T.settingsTitle(ws.name)), panels.map((p) => p.el));
  await Promise.all(panels.map((p) => p.ready));
  return {};
}

/** Members: a role per member, and "Remove" after a confirmation. */
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
    const remove = h("button", { type: "button", "aria-label": T.removeMember(m.name), on: { click: async () => {
      if (!(await confirmDialog(T.removeTitle(m.name), T.removeText, T.remove))) return;
      const ok = await attempt(p.alert, remove, () => del(`/api/members/${enc(m.accountId)}${query({ tenant: ctx.tenant })}`));
      if (!ok) return;
      tr.remove();
      said(p, T.memberRemoved(m.name));
      if (self) await ctx.reload();
      else p.heading.focus();
    } } }, T.remove);
    const tr = h("tr", {}, h("td", {}, self ? T.you(m.name) : m.name), h("td", {}, select), h("td", {}, remove));
    return tr;
  };
  p.ready = loading(p, async () => {
    const list = await get(`/api/members${query({ tenant: ctx.tenant })}`);
    fill(p.body, table([T.name, T.role, T.actions], list.map(row)));
  });
  return p;
}

/** Invitations: create one (its link shown once), list the open ones, revoke. */
function invitations(ctx) {
  const p = panel(T.invitations);
  const role = roleSelect("MEMBER", { name: "role" });
  const button = h("button", { type: "submit", class: "primary" }, T.createInvitation);
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
      const revoke = h("button", { type: "button", "aria-label": T.revokeInvitation(T.roles[inv.role], whenText(inv.expiresAt)), on: { click: async () => {
        if (!(await attempt(p.alert, revoke, () => del(`/api/invitations/${enc(inv.id)}`)))) return;
        said(p, T.invitationRevoked);
        p.heading.focus();
        await load().catch(showError(p));
      } } }, T.revoke);
      return h("tr", {}, h("td", {}, T.roles[inv.role]), h("td", {}, timeEl(inv.createdAt)), h("td", {}, timeEl(inv.expiresAt)), h("td", {}, revoke));
    })));
  };
  p.ready = loading(p, async () => { await load(); fill(p.body, form, once, list); });
  return p;
}

/** Projects: rename each, create one; /api/me is read again so the switcher follows. */
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
  const button = h("button", { type: "submit", class: "primary" }, T.createProject);
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

/** The workspace's settings (§4 and §20). */
function workspaceSettings(ctx) {
  const p = panel(T.workspaceSettings);
  p.ready = loading(p, async () => {
    const s = await get(`/api/settings${query({ tenant: ctx.tenant })}`);
    const scope = radios(T.columnScope, [["TENANT", T.scopeTenant], ["PROJECT", T.scopeProject]], s.columnScope);
    const management = checkbox(T.columnManagement, s.columnManagement, T.columnManagementHint);
    const links = checkbox(T.crossProjectLinks, s.allowCrossProjectLinks);
    const wip = radios(T.wipLimits, [["SOFT", T.wipSoft], ["HARD", T.wipHard]], s.wipLimits);
    const button = h("button", { type: "submit", class: "primary" }, T.saveSettings);
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

/** Webhooks (§18): enable, delete, deliveries; add one (its secret shown once). */
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
    const show = h("button", { type: "button", "aria-label": T.hookDeliveries(w.url), "aria-controls": log.id, on: { click: async () => {
      let attempts;
      if (!(await attempt(p.alert, show, async () => { attempts = await get(`/api/webhooks/${enc(w.id)}/deliveries`); }))) return;
      for (const b of list.querySelectorAll("button[aria-expanded]")) b.setAttribute("aria-expanded", "false");
      show.setAttribute("aria-expanded", "true");
      fill(log, h("h3", {}, T.hookDeliveries(w.url)), attempts.length
        ? table([T.seq, T.event, T.attempt, T.status, T.error, T.duration, T.at], attempts.map((d) => h("tr", {},
          h("td", {}, d.seq), h("td", {}, d.type), h("td", {}, d.attempt), h("td", {}, d.status ?? "—"),
          h("td", {}, d.error || ""), h("td", {}, T.ms(d.durationMs)), h("td", {}, timeEl(d.at)))))
        : h("p", { class: "hint" }, T.noDeliveries));
    } } }, T.deliveries);
    show.setAttribute("aria-expanded", "false");
    const remove = h("button", { type: "button", "aria-label": T.deleteHook(w.url), on: { click: async () => {
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
  // The form: URL, all events or some, an optional secret.
  const url = h("input", { type: "url", name: "url", required: true, maxlength: 2000, autocomplete: "off", placeholder: "https://" });
  const all = checkbox(T.allEvents, true);
  const boxes = EVENTS.map((ev) => h("input", { type: "checkbox", value: ev, id: uid("ev") }));
  const pick = h("div", { class: "event-grid", hidden: true }, boxes.map((b) => h("div", { class: "field inline" }, b, h("label", { for: b.id }, b.value))));
  all.input.addEventListener("change", () => { pick.hidden = all.input.checked; });
  const secret = h("input", { name: "secret", minlength: 16, maxlength: 500, autocomplete: "off", spellcheck: "false" });
  const button = h("button", { type: "submit", class: "primary" }, T.addWebhook);
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
