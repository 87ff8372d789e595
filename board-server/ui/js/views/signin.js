// Sign-in, invitation and password reset (§23), address verification (§26).
import { get, post } from "../api.js";
import { h, fill, field, primaryButton } from "../h.js";
import { T } from "../text.js";
import { refusal, attempt } from "./parts.js";

// What the server offers (§27): a password, a single sign-on provider.
const offer = () => get("/api/auth").catch(() => ({ password: true, oidc: null }));

// A button that starts single sign-on (§27) with `params`.
const ssoButton = (text, params) => h("button", { type: "button", on: { click: () =>
	location.assign(`/api/auth/oidc/start?${new URLSearchParams(params)}`) } }, text);

function formPage(root, { title, lead, fields, button, submit, extra, noForm }) {
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
	// A refused single sign-on comes back as `/?sso=CODE` (§27).
	const sso = new URLSearchParams(location.search).get("sso");
	if (sso) {
		alert.textContent = T.ssoRefused[sso] || T.ssoRefusedOther(sso);
		alert.hidden = false;
		history.replaceState(null, "", location.pathname);
	}
	const go = primaryButton(button);
	const form = h("form", { class: "stack", novalidate: true }, fields, alert, go);
	form.addEventListener("submit", async (e) => {
		e.preventDefault();
		go.disabled = true;
		alert.hidden = true;
		try {
			await submit();
		} catch (err) {
			alert.textContent = refusal(err);
			alert.hidden = false;
		} finally {
			go.disabled = false;
		}
	});
	if (noForm) form.replaceChildren(alert);
	fill(root, h("main", { class: "page narrow signin" }, h("h1", {}, title), lead && h("p", {}, lead), form, extra));
	const first = form.querySelector("input:not([hidden])");
	first?.focus();
}

/** The sign-in page: "Name", "Password", "Sign in"; "Sign in with <name>" (§27). */
export async function signInPage(root, done) {
	const name = h("input", { name: "name", autocomplete: "username", required: true });
	const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
	const auth = await offer();
	const back = location.pathname + location.hash;
	formPage(root, {
		noForm: !auth.password,
		extra: [auth.oidc && h("p", {}, ssoButton(T.ssoSignIn(auth.oidc.name), { return: back })),
			auth.mail && auth.password && forgotten()],
		title: T.signInTitle,
		fields: [field(T.name, name), field(T.password, password)],
		button: T.signIn,
		submit: async () => {
			await post("/api/session", { name: name.value, password: password.value }, { quiet401: true });
			await done();
		},
	});
}

/** "Forgot password?" (§26, with mail on): a name or a verified address gets a
 * reset link by e-mail; the answer is the same whether or not it exists. */
function forgotten() {
	const who = h("input", { name: "who", autocomplete: "username", required: true });
	const status = h("p", { role: "status" });
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
	const send = primaryButton(T.sendResetLink);
	const form = h("form", { class: "stack", novalidate: true, on: { submit: async (e) => {
		e.preventDefault();
		status.textContent = "";
		if (await attempt(alert, send, () => post("/api/password-reset/request", { name: who.value.trim() }))) status.textContent = T.resetLinkSent;
	} } }, field(T.nameOrEmail, who), alert, send, status);
	return h("details", { class: "forgot" }, h("summary", {}, T.forgotPassword), form);
}

/** The invitation (`/invite#CODE`), reset (`/reset#CODE`) and address (`/verify#CODE`) pages. */
export async function codePage(root, kind, done, me) {
	const code = decodeURIComponent(location.hash.slice(1));
	const password = h("input", { name: "password", type: "password", autocomplete: "new-password", required: true });
	if (!code) {
		fill(root, h("main", { class: "page narrow signin" }, h("h1", {}, T[`${kind}Title`]), h("p", { role: "alert", class: "alert" }, T.noCode)));
		return;
	}
	const send = (path, body, options) => async () => {
		await post(path, { code, ...body() }, options);
		history.replaceState(null, "", "/");
		await done();
	};
	if (kind === "verify") {
		const title = T.verifyTitle;
		formPage(root, { title, lead: T.verifyLead, fields: [], button: T.verify, submit: async () => {
			const r = await post("/api/email/verify", { code });
			history.replaceState(null, "", "/verify");
			fill(root, h("main", { class: "page narrow signin" }, h("h1", {}, title), h("p", { role: "status" }, T.verified(r.email))));
		} });
	} else if (kind === "reset") {
		resetPage(root, code, password, send);
	} else if (me) {
		formPage(root, { title: T.inviteTitle, lead: T.inviteAs(me.name), fields: [], button: T.join, submit: send("/api/invitations/accept", () => ({})) });
	} else {
		const name = h("input", { name: "name", autocomplete: "username", required: true });
		const auth = await offer();
		formPage(root, { title: T.inviteTitle, lead: T.inviteLead, fields: [field(T.name, name), field(T.password, password, T.passwordHint)],
			extra: auth.oidc && h("p", {}, ssoButton(T.ssoJoin(auth.oidc.name), { invite: code, return: "/" })),
			button: T.join, submit: send("/api/invitations/accept", () => ({ name: name.value, password: password.value }), { quiet401: true }) });
	}
}

/** The reset page names its account, in the text and in a hidden field that
 * password managers file the new password under; a link that no longer
 * serves says so at once. */
async function resetPage(root, code, password, send) {
	let who;
	try {
		who = await post("/api/password-reset/account", { code }, { quiet401: true });
	} catch (e) {
		fill(root, h("main", { class: "page narrow signin" }, h("h1", {}, T.resetTitle), h("p", { role: "alert", class: "alert" }, refusal(e))));
		return;
	}
	const name = h("input", { name: "name", autocomplete: "username", value: who.name, readonly: true, hidden: true });
	formPage(root, { title: T.resetTitle, lead: T.resetLead(who.name), fields: [name, field(T.newPassword, password, T.passwordHint)],
		button: T.setPassword, submit: send("/api/password-reset", () => ({ password: password.value }), { quiet401: true }) });
}
