// Sign-in, invitation and password reset (§23).
import { post } from "../api.js";
import { h, fill, field, primaryButton } from "../h.js";
import { T } from "../text.js";

/** The message of a refusal, with when to retry for 429. */
export function refusal(e) {
	return e.status === 429 && e.retryAfter ? `${e.message} ${T.retryIn(e.retryAfter)}` : e.message;
}

function formPage(root, { title, lead, fields, button, submit }) {
	const alert = h("p", { role: "alert", class: "alert", hidden: true });
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
	fill(root, h("main", { class: "page narrow signin" }, h("h1", {}, title), lead && h("p", {}, lead), form));
	const first = form.querySelector("input");
	first?.focus();
}

/** The sign-in page: "Name", "Password", "Sign in". */
export function signInPage(root, done) {
	const name = h("input", { name: "name", autocomplete: "username", required: true });
	const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
	formPage(root, {
		title: T.signInTitle,
		fields: [field(T.name, name), field(T.password, password)],
		button: T.signIn,
		submit: async () => {
			await post("/api/session", { name: name.value, password: password.value }, { quiet401: true });
			await done();
		},
	});
}

/** The invitation (`/invite#CODE`) and reset (`/reset#CODE`) pages. */
export function codePage(root, kind, done, me) {
	const code = decodeURIComponent(location.hash.slice(1));
	const password = h("input", { name: "password", type: "password", autocomplete: "new-password", required: true });
	if (!code) {
		fill(root, h("main", { class: "page narrow signin" }, h("h1", {}, kind === "invite" ? T.inviteTitle : T.resetTitle), h("p", { role: "alert", class: "alert" }, T.noCode)));
		return;
	}
	const send = (path, body, options) => async () => {
		await post(path, { code, ...body() }, options);
		history.replaceState(null, "", "/");
		await done();
	};
	if (kind === "reset") {
		formPage(root, { title: T.resetTitle, lead: T.resetLead, fields: [field(T.newPassword, password, T.passwordHint)],
			button: T.setPassword, submit: send("/api/password-reset", () => ({ password: password.value }), { quiet401: true }) });
	} else if (me) {
		formPage(root, { title: T.inviteTitle, lead: T.inviteAs(me.name), fields: [], button: T.join, submit: send("/api/invitations/accept", () => ({})) });
	} else {
		const name = h("input", { name: "name", autocomplete: "username", required: true });
		formPage(root, { title: T.inviteTitle, lead: T.inviteLead, fields: [field(T.name, name), field(T.password, password, T.passwordHint)],
			button: T.join, submit: send("/api/invitations/accept", () => ({ name: name.value, password: password.value }), { quiet401: true }) });
	}
}
