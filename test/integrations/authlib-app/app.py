# A server-side web app signing people in with authlib through test/integrations/snippets/authlib_gatehouse.py, as
# docs/integrations.md "authlib" shows: Python's own WSGI server, one in-memory session per browser (a cookie), and
# the pages a person would click. Usage: app.py PORT; ISSUER, CLIENT_ID and CLIENT_SECRET come from the environment.
# Prints "listening PORT" once it accepts requests.
import json
import os
import sys
from http.cookies import SimpleCookie
from secrets import token_urlsafe
from wsgiref.simple_server import WSGIRequestHandler, make_server

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "snippets"))
from authlib_gatehouse import (  # noqa: E402
    discover,
    finish_sign_in,
    gatehouse_session,
    refresh,
    sign_out,
    start_sign_in,
    user_info,
)

port = int(sys.argv[1])
origin = f"http://127.0.0.1:{port}"
metadata = discover(os.environ["ISSUER"])
sessions = {}


def new_session():
    return gatehouse_session(os.environ["CLIENT_ID"], os.environ["CLIENT_SECRET"], f"{origin}/callback")


def answer(start_response, status, body, headers=()):
    start_response(status, [("content-type", "application/json"), *headers])
    return [json.dumps(body).encode()]


def redirect(start_response, location, headers=()):
    start_response("302 Found", [("location", location), *headers])
    return [b""]


def app(environ, start_response):
    cookie = SimpleCookie(environ.get("HTTP_COOKIE", "")).get("app_session")
    state = sessions.get(cookie.value) if cookie else None
    route = (environ["REQUEST_METHOD"], environ["PATH_INFO"])
    if route == ("GET", "/login"):
        key = token_urlsafe(32)
        session = new_session()
        url, started = start_sign_in(metadata, session)
        sessions[key] = {"oauth": session, "started": started}
        return redirect(start_response, url, [("set-cookie", f"app_session={key}; Path=/; HttpOnly; SameSite=Lax")])
    if route == ("GET", "/signed-out"):
        return answer(start_response, "200 OK", {"signed_in": False})
    if state is None:
        return answer(start_response, "401 Unauthorized", {"error": "not signed in"})
    session = state["oauth"]
    try:
        if route == ("GET", "/callback"):
            callback_url = f"{origin}/callback?{environ['QUERY_STRING']}"
            token, claims = finish_sign_in(metadata, session, callback_url, state.pop("started"))
            state.update(id_token=token["id_token"], claims=dict(claims))
            return redirect(start_response, "/profile")
        if "claims" not in state:
            return answer(start_response, "401 Unauthorized", {"error": "not signed in"})
        if route == ("GET", "/profile"):
            return answer(start_response, "200 OK", {"claims": state["claims"], "userinfo": user_info(metadata, session)})
        if route == ("POST", "/refresh"):
            before = session.token["refresh_token"]
            refresh(metadata, session)
            rotated = session.token["refresh_token"] != before
            body = {"rotated": rotated, "replaced": before, "userinfo": user_info(metadata, session)}
            return answer(start_response, "200 OK", body)
        if route == ("POST", "/logout"):
            location = sign_out(metadata, session, state["id_token"], f"{origin}/signed-out")
            sessions.pop(cookie.value)
            return redirect(start_response, location, [("set-cookie", "app_session=; Path=/; Max-Age=0")])
    except Exception as error:  # what the library refused, for the test to read
        name = getattr(error, "error", None) or type(error).__name__  # authlib's OAuthError names the OAuth error
        return answer(start_response, "502 Bad Gateway", {"error": name, "description": str(error)})
    return answer(start_response, "404 Not Found", {"error": "not found"})


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


with make_server("127.0.0.1", port, app, handler_class=QuietHandler) as server:
    print(f"listening {port}", flush=True)
    server.serve_forever()
