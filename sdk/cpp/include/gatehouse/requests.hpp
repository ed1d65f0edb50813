// The client side of the authorization code flow with PKCE as transport-neutral request descriptions: the app
// sends each HttpRequest with whatever HTTP library it has and hands the answer back to a parse function. A native
// app is a public client (RFC 8252 §8.4): there is no client secret anywhere here, only client_id.
#ifndef GATEHOUSE_REQUESTS_HPP
#define GATEHOUSE_REQUESTS_HPP
#include "dependencies.hpp"
#include "encoding.hpp"
#include "errors.hpp"

GATEHOUSE_EXPORT namespace gatehouse {

struct Header {
  std::string name;
  std::string value;
};

/** One HTTP request to send as described: method, absolute URL, headers and (for POST) the form body. */
struct HttpRequest {
  std::string method;
  std::string url;
  std::vector<Header> headers;
  std::string body;
};

/** The endpoints from the issuer's discovery document (OIDC Discovery 1.0). */
struct Provider {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string userinfo_endpoint;
  std::string jwks_uri;
  std::string end_session_endpoint;
  /** RFC 8628 §4: where a device asks for a user code; empty when the issuer offers no device grant. */
  std::string device_authorization_endpoint;
  /** RFC 9207 §3: the issuer always sends `iss` with its authorization responses. */
  bool authorization_response_iss_parameter_supported = false;
};

struct Client {
  Provider provider;
  std::string client_id;
  /** Registered on the client; for a native app typically http://127.0.0.1:PORT/callback (RFC 8252 §7.3). */
  std::string redirect_uri;
  std::string scope = "openid profile email";
  /** RFC 8707 resource indicators, sent at authorization and with every token request. */
  std::vector<std::string> resources;
};

struct LoginOptions {
  std::string prompt;  // "", "none", "login" or "consent"
  std::optional<long> max_age;
  std::string login_hint;
};

/** One sign-in in flight: keep it (in memory) until the callback arrives, then discard it. */
struct PendingLogin {
  std::string state;
  std::string nonce;
  std::string code_verifier;
  std::string authorization_url;
};

struct TokenResponse {
  std::string access_token;
  std::string token_type;
  long expires_in = 0;
  std::string scope;
  std::string refresh_token;  // empty unless offline_access was granted; rotated by every refresh
  std::string id_token;       // empty unless openid was granted
};

struct UserInfo {
  std::string sub;
  std::string name;
  std::string email;
  bool email_verified = false;
  /** The whole JSON object, for claims not named above. */
  std::string json;
};

inline HttpRequest discoveryRequest(std::string_view issuer) {
  std::string base(issuer);
  if (!base.empty() && base.back() == '/') base.pop_back();
  return {"GET", base + "/.well-known/openid-configuration", {{"Accept", "application/json"}}, {}};
}

/** Reads the discovery document; it must name exactly the issuer it was fetched for (OIDC Discovery §4.3). */
inline Provider parseDiscovery(std::string_view json, std::string_view expected_issuer) {
  const auto document = nlohmann::json::parse(json, nullptr, false);
  if (!document.is_object()) throw Error(ErrorCode::invalid_response, "the discovery document is not a JSON object");
  const auto text = [&](const char* name, bool required) {
    const auto it = document.find(name);
    if (it != document.end() && it->is_string()) return it->get<std::string>();
    if (required) throw Error(ErrorCode::invalid_response, std::string("the discovery document has no ") + name);
    return std::string{};
  };
  Provider provider{text("issuer", true),         text("authorization_endpoint", true), text("token_endpoint", true),
                    text("userinfo_endpoint", true), text("jwks_uri", true), text("end_session_endpoint", false),
                    text("device_authorization_endpoint", false)};
  if (provider.issuer != expected_issuer)
    throw Error(ErrorCode::issuer_mismatch, "the discovery document names issuer " + provider.issuer);
  const auto iss = document.find("authorization_response_iss_parameter_supported");
  provider.authorization_response_iss_parameter_supported = iss != document.end() && *iss == true;
  return provider;
}

inline HttpRequest jwksRequest(const Client& client) {
  return {"GET", client.provider.jwks_uri, {{"Accept", "application/json"}}, {}};
}

/** A fresh state, nonce and PKCE S256 verifier from the CSPRNG (RFC 7636 §4.1–4.2), and the URL to open. */
inline PendingLogin beginLogin(const Client& client, const LoginOptions& options = {}) {
  PendingLogin login{detail::randomToken(), detail::randomToken(), detail::randomToken(), {}};
  detail::Parameters query{{"response_type", "code"},
                           {"client_id", client.client_id},
                           {"redirect_uri", client.redirect_uri},
                           {"scope", client.scope},
                           {"state", login.state},
                           {"nonce", login.nonce},
                           {"code_challenge", detail::base64urlEncode(detail::sha256(login.code_verifier))},
                           {"code_challenge_method", "S256"}};
  for (const auto& resource : client.resources) query.emplace_back("resource", resource);
  if (!options.prompt.empty()) query.emplace_back("prompt", options.prompt);
  if (options.max_age) query.emplace_back("max_age", std::to_string(*options.max_age));
  if (!options.login_hint.empty()) query.emplace_back("login_hint", options.login_hint);
  const auto& endpoint = client.provider.authorization_endpoint;
  login.authorization_url = endpoint + (endpoint.find('?') == std::string::npos ? '?' : '&') + detail::formEncode(query);
  return login;
}

/**
 * Checks the redirect back (a URL or its query): state first, then iss (RFC 9207 §2.4), then an error answer;
 * returns the authorization code.
 */
inline std::string checkCallback(const Client& client, const PendingLogin& login, std::string_view callback_url) {
  const auto query = detail::parseQuery(callback_url);
  if (detail::single(query, "state") != login.state)
    throw Error(ErrorCode::state_mismatch, "the callback state is not the one this sign-in sent");
  const auto iss = detail::single(query, "iss");
  if (iss ? *iss != client.provider.issuer : client.provider.authorization_response_iss_parameter_supported)
    throw Error(ErrorCode::issuer_mismatch, "the callback comes from issuer " + iss.value_or("(none)"));
  if (const auto error = detail::single(query, "error"))
    throw Error(ErrorCode::authorization_error, "the authorization was refused", *error,
                detail::single(query, "error_description").value_or(""));
  auto code = detail::single(query, "code");
  if (!code || code->empty()) throw Error(ErrorCode::invalid_response, "the callback has no code");
  return *code;
}

}  // namespace gatehouse

namespace gatehouse::detail {
inline HttpRequest tokenRequest(const Client& client, Parameters parameters) {
  parameters.emplace_back("client_id", client.client_id);
  for (const auto& resource : client.resources) parameters.emplace_back("resource", resource);
  return {"POST",
          client.provider.token_endpoint,
          {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}},
          formEncode(parameters)};
}
}  // namespace gatehouse::detail

GATEHOUSE_EXPORT namespace gatehouse {

/** RFC 6749 §4.1.3 with the PKCE verifier (RFC 7636 §4.5). */
inline HttpRequest authorizationCodeRequest(const Client& client, const PendingLogin& login, std::string_view code) {
  return detail::tokenRequest(client, {{"grant_type", "authorization_code"},
                                       {"code", std::string(code)},
                                       {"redirect_uri", client.redirect_uri},
                                       {"code_verifier", login.code_verifier}});
}

/** RFC 6749 §6. Gatehouse rotates refresh tokens: keep the answer's refresh_token in place of this one. */
inline HttpRequest refreshRequest(const Client& client, std::string_view refresh_token) {
  return detail::tokenRequest(client, {{"grant_type", "refresh_token"}, {"refresh_token", std::string(refresh_token)}});
}

/** OIDC Core §5.3.1 with the access token as Bearer (RFC 6750 §2.1). */
inline HttpRequest userInfoRequest(const Client& client, std::string_view access_token) {
  return {"GET",
          client.provider.userinfo_endpoint,
          {{"Authorization", "Bearer " + std::string(access_token)}, {"Accept", "application/json"}},
          {}};
}

/** The token endpoint's answer; a refusal throws token_error with the server's error and description. */
inline TokenResponse parseTokenResponse(long status, std::string_view body) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  const auto text = [&](const char* name) {
    const auto it = json.is_object() ? json.find(name) : json.end();
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string{};
  };
  if (status != 200 || text("access_token").empty()) {
    const auto error = text("error");
    throw Error(ErrorCode::token_error, "the token endpoint answered " + std::to_string(status) + " " + error,
                error.empty() ? "invalid_response" : error, text("error_description"));
  }
  TokenResponse tokens{text("access_token"), text("token_type"), 0, text("scope"), text("refresh_token"),
                       text("id_token")};
  if (const auto it = json.find("expires_in"); it != json.end() && it->is_number_integer())
    tokens.expires_in = it->get<long>();
  return tokens;
}

/** The userinfo answer; a refusal throws userinfo_error with the RFC 6750 error code. */
inline UserInfo parseUserInfo(long status, std::string_view body) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  const auto text = [&](const char* name) {
    const auto it = json.is_object() ? json.find(name) : json.end();
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string{};
  };
  if (status != 200) {
    const auto error = text("error");
    throw Error(ErrorCode::userinfo_error, "userinfo answered " + std::to_string(status),
                error.empty() ? "invalid_token" : error, text("error_description"));
  }
  if (text("sub").empty()) throw Error(ErrorCode::invalid_response, "userinfo has no sub");
  const auto verified = json.find("email_verified");
  return {text("sub"), text("name"), text("email"), verified != json.end() && *verified == true, json.dump()};
}

/** RFC 8628 §3.2: what the device shows the person, and what it polls with. */
struct DeviceAuthorization {
  std::string device_code;  // keep it to poll with; never show it
  std::string user_code;    // show it: XXXX-XXXX
  std::string verification_uri;
  std::string verification_uri_complete;  // the URI with the code in it, for a QR code; may be empty
  long expires_in = 0;
  long interval = 5;  // seconds between polls
};

/** RFC 8628 §3.1: a public client asks for a device code and a user code, for `client.scope` and its resource. */
inline HttpRequest deviceAuthorizationRequest(const Client& client) {
  if (client.provider.device_authorization_endpoint.empty())
    throw Error(ErrorCode::invalid_response, "the issuer offers no device_authorization_endpoint");
  detail::Parameters form{{"client_id", client.client_id}, {"scope", client.scope}};
  for (const auto& resource : client.resources) form.emplace_back("resource", resource);
  return {"POST",
          client.provider.device_authorization_endpoint,
          {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}},
          detail::formEncode(form)};
}

/** The device authorization answer; a refusal throws token_error with the server's error and description. */
inline DeviceAuthorization parseDeviceAuthorization(long status, std::string_view body) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  const auto text = [&](const char* name) {
    const auto it = json.is_object() ? json.find(name) : json.end();
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string{};
  };
  const auto number = [&](const char* name, long fallback) {
    const auto it = json.is_object() ? json.find(name) : json.end();
    return it != json.end() && it->is_number_integer() ? it->get<long>() : fallback;
  };
  if (status != 200 || text("device_code").empty() || text("user_code").empty()) {
    const auto error = text("error");
    throw Error(ErrorCode::token_error, "the device authorization endpoint answered " + std::to_string(status),
                error.empty() ? "invalid_response" : error, text("error_description"));
  }
  return {text("device_code"), text("user_code"), text("verification_uri"), text("verification_uri_complete"),
          number("expires_in", 0), number("interval", 5)};
}

/** RFC 8628 §3.4: one poll of the token endpoint with the device code. */
inline HttpRequest deviceCodeRequest(const Client& client, const DeviceAuthorization& device) {
  return detail::tokenRequest(client, {{"grant_type", "urn:ietf:params:oauth:grant-type:device_code"},
                                       {"device_code", device.device_code}});
}

/** Where a poll left the sign-in: tokens, or poll again after `interval` seconds. */
struct DevicePoll {
  bool done = false;
  TokenResponse tokens;  // when done
  long interval = 5;     // the interval to wait before the next poll (grown by 5 s after slow_down, RFC 8628 §3.5)
};

/**
 * A poll's answer: tokens; authorization_pending (same interval) or slow_down (5 s more) to poll again; anything
 * else (access_denied, expired_token, invalid_grant ...) throws token_error with the server's error.
 */
inline DevicePoll parseDevicePoll(long status, std::string_view body, long interval) {
  try {
    return {true, parseTokenResponse(status, body), interval};
  } catch (const Error& error) {
    if (error.error() == "authorization_pending") return {false, {}, interval};
    if (error.error() == "slow_down") return {false, {}, interval + 5};
    throw;
  }
}

}  // namespace gatehouse

#endif
