# authlib (1.2+) with requests, server-side web app with a `web` client (Flask, Django and Starlette apps use the same
# OAuth2Session calls, or their integration's `oauth.register(...)` with the same keyword arguments).
from secrets import token_urlsafe
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.core import CodeIDToken


def discover(issuer):
    metadata = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
    if metadata["issuer"] != issuer:
        raise ValueError("the discovery document names another issuer")
    return metadata


def gatehouse_session(client_id, client_secret, redirect_uri):
    """Gatehouse refuses HTTP Basic (authlib's default) and requires PKCE S256 (authlib's default is none)."""
    return OAuth2Session(
        client_id,
        client_secret,
        scope="openid profile email offline_access",
        redirect_uri=redirect_uri,
        token_endpoint_auth_method="client_secret_post",
        revocation_endpoint_auth_method="client_secret_post",
        code_challenge_method="S256",
    )


def start_sign_in(metadata, session):
    """The URL to redirect to, and what to keep in the user's session until the callback."""
    started = {"code_verifier": token_urlsafe(48), "nonce": token_urlsafe(24)}
    url, state = session.create_authorization_url(metadata["authorization_endpoint"], **started)
    return url, {**started, "state": state}


def finish_sign_in(metadata, session, callback_url, started):
    """Checks iss (RFC 9207) and state, exchanges the code, verifies the ID token; returns the token and its claims."""
    if dict(parse_qsl(urlsplit(callback_url).query)).get("iss") != metadata["issuer"]:
        raise ValueError("the callback names another issuer")
    token = session.fetch_token(
        metadata["token_endpoint"],
        authorization_response=callback_url,
        state=started["state"],
        code_verifier=started["code_verifier"],
    )
    keys = JsonWebKey.import_key_set(requests.get(metadata["jwks_uri"], timeout=10).json())
    claims = JsonWebToken(["RS256"]).decode(
        token["id_token"],
        keys,
        claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": metadata["issuer"]}},
        claims_params={
            "nonce": started["nonce"],
            "client_id": session.client_id,
            "access_token": token["access_token"],  # checks at_hash
        },
    )
    claims.validate()
    return token, claims


def user_info(metadata, session):
    """Name and email (the `profile` and `email` scopes); key the user to `sub`, never to the email."""
    return session.get(metadata["userinfo_endpoint"], timeout=10).json()


def refresh(metadata, session):
    """Gatehouse rotates the refresh token on every use; authlib keeps the new one in session.token."""
    return session.refresh_token(metadata["token_endpoint"], refresh_token=session.token["refresh_token"])


def sign_out(metadata, session, id_token, post_logout_redirect_uri):
    """Revokes the grant (RFC 7009), then the URL that ends the Gatehouse session (RP-Initiated Logout 1.0)."""
    session.revoke_token(
        metadata["revocation_endpoint"], token=session.token["refresh_token"], token_type_hint="refresh_token"
    )
    query = urlencode({"id_token_hint": id_token, "post_logout_redirect_uri": post_logout_redirect_uri})
    return f"{metadata['end_session_endpoint']}?{query}"
