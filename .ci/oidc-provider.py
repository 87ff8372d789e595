"""The OpenID provider of the single sign-on tests (api.md §27).

oidc-provider-mock (authlib inside) as it ships, with what the tests need on top
(and the key id in each ID token's header, where real providers put it):
  --alg ES256         sign ID tokens with a P-256 key (RS256 by default);
  --auth post         discovery lists only client_secret_post, and the token
                      endpoint refuses a client that authenticates otherwise
                      (by default it takes client_secret_basic alone);
  --issuer URL        discovery states URL as the issuer (not the provider's own);
  --redirect-keys     the keys' URL answers a redirect (to the keys themselves);
  POST /test/rotate   a new signing key: the keys published are then only it;
  PUT /test/tamper/<sub>
                      the next ID token for <sub> is changed before it leaves:
                      {"claims": {...}} replaces claims (null removes one) and
                      {"sign": "published" | "unpublished" | "none"} signs it
                      with the published key, with a key never published (under
                      the published key's id), or not at all (alg "none").
Run by `.ci/oidc-provider start PORT [OPTIONS]`.
"""

import argparse
import base64
import json
import logging
import os
import sys
import threading
from datetime import timedelta

import flask
import uvicorn
from authlib import jose
from oidc_provider_mock import _app, _storage

ALG = "RS256"
tampering = {}
lock = threading.Lock()


def new_key():
    if ALG == "ES256":
        return jose.ECKey.generate_key("P-256", is_private=True)
    return jose.RSAKey.generate_key(is_private=True)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(claims, key, kid, how):
    if how == "none":
        header = {"alg": "none", "typ": "JWT"}
        return b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode()) + "."
    if how == "unpublished":
        key = new_key()
    header = {"alg": ALG, "kid": kid, "typ": "JWT"}
    return jose.jwt.encode(header, claims, key).decode()


def build(auth, issuer, redirect_keys):
    original_init = _storage.Storage.__init__

    def init(self):
        original_init(self)
        self.jwk = new_key()

    _storage.Storage.__init__ = init
    _app._JWS_ALG = ALG
    app = _app.app(require_nonce=True, access_token_max_age=timedelta(hours=1))

    @app.before_request
    def client_authentication():
        # The mock takes any method; this one takes the method discovery lists.
        if flask.request.path != "/oauth2/token":
            return None
        basic = "Authorization" in flask.request.headers
        posted = "client_secret" in flask.request.form
        if (auth == "post") == basic or (auth == "post") != posted:
            return flask.jsonify({"error": "invalid_client",
                                  "error_description": f"this provider takes client_secret_{auth} only"}), 401
        return None

    @app.after_request
    def adjust(response):
        path = flask.request.path
        if path == "/.well-known/openid-configuration":
            doc = response.get_json()
            doc["id_token_signing_alg_values_supported"] = [ALG]
            if issuer:
                doc["issuer"] = issuer
            if redirect_keys:
                doc["jwks_uri"] = doc["jwks_uri"].replace("/jwks", "/moved-keys")
            if auth == "post":
                doc["token_endpoint_auth_methods_supported"] = ["client_secret_post"]
            response.set_data(json.dumps(doc))
        elif path == "/oauth2/token" and response.status_code == 200:
            body = response.get_json()
            token = body.get("id_token")
            if token:
                claims = json.loads(unb64(token.split(".")[1]))
                with lock:
                    change = tampering.pop(claims.get("sub"), None) or {}
                for name, value in change.get("claims", {}).items():
                    if value is None:
                        claims.pop(name, None)
                    else:
                        claims[name] = value
                # Signed again in any case: the mock leaves the key id out of
                # the header, where real providers put it.
                store = flask.g.oidc_provider_mock_storage
                kid = store.jwk.as_dict()["kid"]
                body["id_token"] = sign(claims, store.jwk, kid, change.get("sign", "published"))
                response.set_data(json.dumps(body))
        return response

    @app.get("/moved-keys")
    def moved_keys():
        return flask.redirect("/jwks", code=302)

    @app.post("/test/rotate")
    def rotate():
        flask.g.oidc_provider_mock_storage.jwk = new_key()
        return "", 204

    @app.put("/test/tamper/<sub>")
    def tamper(sub):
        with lock:
            tampering[sub] = flask.request.get_json()
        return "", 204

    return app


def main():
    global ALG
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--alg", choices=["RS256", "ES256"], default="RS256")
    parser.add_argument("--auth", choices=["basic", "post"], default="basic")
    parser.add_argument("--issuer")
    parser.add_argument("--redirect-keys", action="store_true")
    args = parser.parse_args()
    ALG = args.alg
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    uvicorn.run(build(args.auth, args.issuer, args.redirect_keys), interface="wsgi", host="127.0.0.1", port=args.port,
                log_config=None, log_level="warning")


if __name__ == "__main__":
    main()
