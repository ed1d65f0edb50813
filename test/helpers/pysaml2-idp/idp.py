"""A SAML 2.0 identity provider for the tests, made of pysaml2 (Debian's python3-pysaml2) and nothing else of ours.

Run as `python3 idp.py <state dir>`; it listens on a free loopback port and prints `listening <port>` once ready.
Everything it needs is read from the state directory on each request, so the test can change it between sign-ins:
  idp.key, idp.crt   the key pair it signs with (a test rolls it over by replacing both files)
  sp.xml             the service provider's metadata (its ACS and certificate), written once the SP is up
  person.json        who signs in: {"uid": ..., "attributes": {friendly name: [values]}}
Attributes go out under pysaml2's defaults for SAML 2.0: the urn:oid: names of its saml_uri map, NameFormat uri.

GET /metadata  the identity provider's metadata (entity id, HTTP-Redirect SSO service, current signing certificate)
GET /sso       takes the HTTP-Redirect AuthnRequest and answers with pysaml2's auto-posting HTML form to the ACS
"""
import json
import os
import sys
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIRequestHandler, make_server

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.config import IdPConfig
from saml2.metadata import entity_descriptor
from saml2.saml import NAME_FORMAT_URI, NAMEID_FORMAT_PERSISTENT, NameID
from saml2.saml import AUTHN_PASSWORD_PROTECTED
from saml2.server import Server

STATE = sys.argv[1]
BASE = ""


def state_file(name):
    return os.path.join(STATE, name)


def config():
    sp_metadata = state_file("sp.xml")
    settings = {
        "entityid": BASE + "/metadata",
        "service": {
            "idp": {
                "endpoints": {"single_sign_on_service": [(BASE + "/sso", BINDING_HTTP_REDIRECT)]},
                # pysaml2's default release policy, with the SAML 2.0 URI names (urn:oid:...).
                "policy": {"default": {"lifetime": {"minutes": 5}, "name_form": NAME_FORMAT_URI}},
                "name_id_format": [NAMEID_FORMAT_PERSISTENT],
                "sign_assertion": True,
            }
        },
        "key_file": state_file("idp.key"),
        "cert_file": state_file("idp.crt"),
        "xmlsec_binary": "/usr/bin/xmlsec1",
        "metadata": {"local": [sp_metadata]} if os.path.exists(sp_metadata) else {},
    }
    loaded = IdPConfig()
    loaded.load(settings)
    return loaded


def metadata(_environ):
    return "200 OK", "application/samlmetadata+xml", str(entity_descriptor(config()))


def sso(environ):
    query = parse_qs(environ.get("QUERY_STRING", ""))
    server = Server(config=config())
    request = server.parse_authn_request(query["SAMLRequest"][0], BINDING_HTTP_REDIRECT).message
    with open(state_file("person.json")) as file:
        person = json.load(file)
    acs = request.assertion_consumer_service_url
    response = server.create_authn_response(
        person["attributes"],
        in_response_to=request.id,
        destination=acs,
        sp_entity_id=request.issuer.text,
        name_id=NameID(format=NAMEID_FORMAT_PERSISTENT, text=person["uid"]),
        authn={"class_ref": AUTHN_PASSWORD_PROTECTED, "authn_auth": BASE},
        sign_assertion=True,
    )
    relay_state = query.get("RelayState", [""])[0]
    page = server.apply_binding(BINDING_HTTP_POST, str(response), acs, relay_state, response=True)
    return "200 OK", "text/html; charset=utf-8", page["data"]


ROUTES = {"/metadata": metadata, "/sso": sso}


def app(environ, start_response):
    route = ROUTES.get(environ["PATH_INFO"])
    if environ["REQUEST_METHOD"] != "GET" or route is None:
        status, kind, body = "404 Not Found", "text/plain", "not here"
    else:
        try:
            status, kind, body = route(environ)
        except Exception as error:  # the test reads the reason from the answer
            status, kind, body = "500 Internal Server Error", "text/plain", repr(error)
    data = body.encode("utf-8")
    start_response(status, [("Content-Type", kind), ("Content-Length", str(len(data)))])
    return [data]


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


if __name__ == "__main__":
    httpd = make_server("127.0.0.1", 0, app, handler_class=Quiet)
    BASE = "http://127.0.0.1:%d" % httpd.server_port
    print("listening %d" % httpd.server_port, flush=True)
    httpd.serve_forever()
