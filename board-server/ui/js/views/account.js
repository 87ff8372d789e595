// The account page (§23): name, password, e-mail (§26), identities (§27), tokens and sessions.
import { get, post, patch, del } from "../api.js";
import { h, fill, field, primaryButton, uid } from "../h.js";
import { T } from "../text.js";
import { go } from "../router.js";
import { refreshMe } from "../session.js";
import { frame } from "./frame.js";
import { panel, said, attempt, timeEl, whenText, shownOnce, showError, table } from "./parts.js";

/** `/account`. */
export async function accountPage(root, route, session) {
	const main = frame(root, session, route);
	const me = session.me;
	const rebuild = async () => { await refreshMe(); go("/account", true); };
	const tokens = tokensPanels();
	const auth = await get("/api/auth").catch(() => ({}));
	const prefs = me.mail ? await get("/api/me/notifications").catch(() => null) : null;
	fill(main, h("h1", {}, T.accountTitle), namePanel(me, rebuild), passwordPanel(me, rebuild, tokens.load),
		me.mail ? emailPanel(me, prefs, rebuild) : [],
		(auth.oidc || me.identities?.length) ? identitiesPanel(me, auth.oidc, rebuild) : [], tokens.el);
	await tokens.ready;
	return {};
}

function namePanel(me, rebuild) {
	const p = panel(T.name);
	const name = h("input", { name: "name", value: me.name, required: true, maxlength: 100, autocomplete: "username" });
	const button = primaryButton(T.saveName);
	fill(p.body, h("form", { class: "row bottom", on: { submit: async (e) => {
		e.preventDefault();
		if (!(await attempt(p.alert, button, () => patch("/api/me", { name: name.value.trim() })))) return;
		said(p, T.nameSaved);
		await rebuild();
	} } }, field(T.name, name), button));
	return p.el;
}

function passwordPanel(me, rebuild, reloadTokens) {
	const p = panel(T.password);
	const current = h("input", { type: "password", name: "current", required: true, autocomplete: "current-password" });
	const next = h("input", { type: "password", name: "new", required: true, autocomplete: "new-password" });
	const button = primaryButton(T.changePassword);
	const form = h("form", { class: "stack", on: { submit: async (e) => {
		e.preventDefault();
		const password = me.hasPassword ? { current: current.value, new: next.value } : { new: next.value };
		if (!(await attempt(p.alert, button, () => patch("/api/me", { password })))) return;
		form.reset();
		said(p, T.passwordChanged);
		if (!me.hasPassword) return rebuild();
		await reloadTokens();
	} } },
	// A hidden user name helps password managers file the new password.
	h("input", { type: "text", name: "username", autocomplete: "username", value: me.name, hidden: true }),
	me.hasPassword ? field(T.currentPassword, current) : h("p", { class: "note" }, T.noPasswordYet),
	field(T.newPassword, next, T.passwordHint), h("div", {}, button));
	fill(p.body, form);
	return p.el;
}

// The e-mail address and what to send there (§26), when the server sends mail.
function emailPanel(me, prefs, rebuild) {
	const p = panel(T.emailTitle);
	const address = h("input", { type: "email", name: "email", value: me.email || "", autocomplete: "email", maxlength: 254 });
	const save = primaryButton(T.saveEmail);
	const state = h("p", { class: "hint" }, !me.email ? T.noEmail : me.emailVerified ? T.emailVerified : T.emailUnverified);
	const addressForm = h("form", { class: "row bottom", novalidate: true, on: { submit: async (e) => {
		e.preventDefault();
		if (!(await attempt(p.alert, save, () => patch("/api/me", { email: address.value.trim() || null })))) return;
		said(p, T.emailSaved);
		await rebuild();
	} } }, field(T.emailAddress, address), save);
	if (!prefs) {
		fill(p.body, addressForm, state);
		return p.el;
	}
	const boxes = Object.keys(T.mailKinds).map((k) => h("input", { type: "checkbox", id: uid("mail"), checked: !!prefs.email[k], data: { kind: k } }));
	const minutes = h("input", { type: "number", name: "batchMinutes", min: 0, max: 1440, value: prefs.batchMinutes });
	const keep = primaryButton(T.savePrefs);
	const prefsForm = h("form", { class: "stack", novalidate: true, on: { submit: async (e) => {
		e.preventDefault();
		const email = Object.fromEntries(boxes.map((b) => [b.dataset.kind, b.checked]));
		if (await attempt(p.alert, keep, () => patch("/api/me/notifications", { email, batchMinutes: Number(minutes.value) }))) said(p, T.prefsSaved);
	} } }, h("fieldset", {}, h("legend", {}, T.mailWanted),
		boxes.map((b) => h("div", { class: "row" }, b, h("label", { for: b.id }, T.mailKinds[b.dataset.kind])))),
	field(T.batchMinutes, minutes), h("div", {}, keep));
	fill(p.body, addressForm, state, prefsForm);
	return p.el;
}

// Linked identities (§27): "Link <name>" starts single sign-on in link mode; a
// refused link comes back here as `?sso=CODE`.
function identitiesPanel(me, oidc, rebuild) {
	const p = panel(T.identities);
	const sso = new URLSearchParams(location.search).get("sso");
	if (sso) {
		p.alert.textContent = T.ssoRefused[sso] || T.ssoRefusedOther(sso);
		p.alert.hidden = false;
		history.replaceState(null, "", location.pathname);
	}
	const unlink = (i) => {
		const button = h("button", { "aria-label": T.unlinkIdentity(i.email || i.subject), on: { click: async () => {
			if (!(await attempt(p.alert, button, () => del(`/api/me/identities/${encodeURIComponent(i.id)}`)))) return;
			said(p, T.identityUnlinked);
			await rebuild();
		} } }, T.unlink);
		return button;
	};
	fill(p.body, h("p", { class: "hint" }, T.identitiesLead),
		me.identities?.length
			? table([T.issuer, T.subject, T.email, T.linked, T.actions], me.identities.map((i) =>
				[i.issuer, i.subject, i.email || "—", timeEl(i.linkedAt), unlink(i)]))
			: h("p", { class: "hint" }, T.noIdentities),
		oidc && h("p", {}, h("button", { type: "button", on: { click: () =>
			location.assign("/api/auth/oidc/start?link=true&return=/account") } }, T.ssoLink(oidc.name))));
	return p.el;
}

function tokensPanels() {
	const tp = panel(T.tokens);
	const sp = panel(T.sessions);
	const list = h("div", {});
	const sessions = h("div", {});
	const once = h("div", {});
	const revoke = (p, token, name) => {
		const button = h("button", { "aria-label": name, on: { click: async () => {
			if (!(await attempt(p.alert, button, () => del(`/api/tokens/${encodeURIComponent(token.id)}`)))) return;
			said(p, T.tokenRevoked);
			p.heading.focus();
			await load().catch(showError(p));
		} } }, T.revoke);
		return button;
	};
	const load = async () => {
		const all = await get("/api/tokens");
		const personal = all.filter((t) => t.kind === "personal");
		fill(list, personal.length
			? table([T.label, T.created, T.expires, T.lastUsed, T.actions], personal.map((t) => h("tr", {},
				h("td", { class: "wrap" }, t.label || "—"), h("td", {}, timeEl(t.createdAt)), h("td", {}, timeEl(t.expiresAt)),
				h("td", {}, timeEl(t.lastUsedAt)), h("td", {}, revoke(tp, t, T.revokeToken(t.label || whenText(t.createdAt)))))))
			: h("p", { class: "hint" }, T.noTokens));
		fill(sessions, table([T.signedIn, T.expires, T.lastUsed, T.actions], all.filter((t) => t.kind === "session").map((t) =>
			[[timeEl(t.createdAt), t.current ? ` ${T.thisBrowser}` : ""], timeEl(t.expiresAt), timeEl(t.lastUsedAt),
				revoke(sp, t, t.current ? T.revokeThisSession : T.revokeSession(whenText(t.createdAt)))])));
	};
	const label = h("input", { name: "label", required: true, maxlength: 100, autocomplete: "off" });
	const days = h("input", { name: "expiresInDays", type: "number", min: 1, max: 3650, step: 1, inputmode: "numeric" });
	const button = primaryButton(T.createToken);
	const form = h("form", { class: "row bottom", on: { submit: async (e) => {
		e.preventDefault();
		const body = { label: label.value.trim(), expiresInDays: days.value ? Number(days.value) : undefined };
		let made;
		if (!(await attempt(tp.alert, button, async () => { made = await post("/api/tokens", body); }))) return;
		form.reset();
		fill(once, shownOnce(T.newToken, T.copyToken, made.token, T.tokenOnce));
		await load().catch(showError(tp));
	} } }, field(T.tokenLabel, label), field(T.expiresInDays, days), button);
	// The hint under the row, not in its field: the fields and the button line up.
	const hint = h("p", { class: "hint", id: uid("hint") }, T.expiresHint);
	days.setAttribute("aria-describedby", hint.id);
	fill(tp.body, h("p", { class: "hint" }, T.tokensLead), form, hint, once, list);
	fill(sp.body, h("p", { class: "hint" }, T.sessionsLead), sessions);
	const ready = load().catch(showError(tp));
	return { el: [tp.el, sp.el], load: () => load().catch(showError(tp)), ready };
}
