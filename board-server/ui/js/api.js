// The API, with the session cookie, ETags and If-Match.

/** An answer other than 2xx: `status`, the server's `code` and `message`. */
export class ApiError extends Error {
	constructor(status, body, retryAfter) {
		super(explain(status, body));
		this.status = status;
		this.code = body?.error || "";
		this.body = body;
		this.retryAfter = retryAfter;
	}
}

function explain(status, body) {
	if (!body || !body.message) return `The server answered ${status}.`;
	const details = body.details || {};
	const fields = Object.entries(details.fieldErrors || {}).map(([k, v]) => `${k}: ${v.join(" ")}`);
	const more = [...fields, ...(details.formErrors || [])];
	return more.length ? `${body.message}: ${more.join("; ")}` : body.message;
}

const cache = new Map();
let onSignedOut = () => {};

/** Called when the server answers 401: the session ended. */
export function whenSignedOut(fn) {
	onSignedOut = fn;
}

/** Sends a request; resolves to the JSON answer (the cached one on 304). */
export async function api(method, path, body, options = {}) {
	const headers = {};
	const init = { method, headers, credentials: "same-origin" };
	if (body instanceof FormData) {
		init.body = body;
	} else if (body !== undefined) {
		headers["Content-Type"] = "application/json";
		init.body = JSON.stringify(body);
	}
	const cached = method === "GET" ? cache.get(path) : undefined;
	if (cached) headers["If-None-Match"] = cached.etag;
	if (options.ifMatch) headers["If-Match"] = options.ifMatch;
	let response;
	try {
		response = await fetch(path, init);
	} catch {
		throw new ApiError(0, { message: "The server cannot be reached. Check the connection and try again." });
	}
	if (response.status === 304 && cached) return options.withEtag ? { data: cached.data, etag: cached.etag } : cached.data;
	const text = await response.text();
	let data = null;
	try {
		data = text ? JSON.parse(text) : null;
	} catch {
		data = null;
	}
	if (!response.ok) {
		const error = new ApiError(response.status, data, response.headers.get("Retry-After"));
		if (response.status === 401 && !options.quiet401) onSignedOut(error);
		throw error;
	}
	const etag = response.headers.get("ETag");
	if (method === "GET" && etag) cache.set(path, { etag, data });
	// A write's answer is what this read now answers (api.md §22).
	if (options.cacheAs && etag) cache.set(options.cacheAs, { etag, data });
	if (options.withEtag) return { data, etag };
	return data;
}

/** Forgets every cached read (after signing out). */
export function forget() {
	cache.clear();
}

/** `?a=1&b=2` from an object, leaving out empty values. */
export function query(params) {
	const q = new URLSearchParams();
	for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
	const s = q.toString();
	return s ? `?${s}` : "";
}

export const get = (path, options) => api("GET", path, undefined, options);
export const post = (path, body, options) => api("POST", path, body, options);
export const patch = (path, body, options) => api("PATCH", path, body, options);
export const del = (path, options) => api("DELETE", path, undefined, options);
