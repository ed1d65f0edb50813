// ID token validation (OIDC Core §3.1.3.7) with OpenSSL: the RS256 signature against the JWKS the caller fetched
// (jwksRequest), then iss, aud, azp, exp, iat, nbf, nonce and at_hash. nlohmann::json reads the JWKS and the JWT
// parts; nothing else of JOSE is needed, since Gatehouse signs only with RS256 (docs/oauth.md "Tokens").
#ifndef GATEHOUSE_ID_TOKEN_HPP
#define GATEHOUSE_ID_TOKEN_HPP
#include "dependencies.hpp"
#include "encoding.hpp"
#include "errors.hpp"
#include "requests.hpp"

GATEHOUSE_EXPORT namespace gatehouse {

struct IdTokenClaims {
  std::string iss;
  std::string sub;
  std::vector<std::string> aud;
  std::int64_t exp = 0;
  std::int64_t iat = 0;
  std::string azp;
  std::string nonce;
  std::string sid;
  std::string acr;
  std::int64_t auth_time = 0;
  /** The whole payload, for claims not named above. */
  std::string json;
};

struct IdTokenExpectations {
  /** The sign-in's nonce; nullopt after a refresh only if the sign-in sent none (Gatehouse repeats it, §12.2). */
  std::optional<std::string> nonce;
  /** The access token that came with the ID token: at_hash must match it (§3.1.3.6). */
  std::string access_token;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
  /** Clock difference accepted for exp, iat and nbf. */
  std::chrono::seconds leeway{60};
};

}  // namespace gatehouse

namespace gatehouse::detail {

[[noreturn]] inline void invalid(const std::string& why) { throw Error(ErrorCode::invalid_id_token, why); }

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

/** An RSA public key from a JWK's base64url n and e (RFC 7518 §6.3.1). */
inline Pkey rsaPublicKey(const std::string& n, const std::string& e) {
  const auto bn = [](const std::string& bytes) {
    return std::unique_ptr<BIGNUM, decltype(&BN_free)>(
        BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()), nullptr),
        &BN_free);
  };
  const auto modulus = bn(n), exponent = bn(e);
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> build(OSSL_PARAM_BLD_new(), &OSSL_PARAM_BLD_free);
  if (!modulus || !exponent || !build || !OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, modulus.get()) ||
      !OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, exponent.get()))
    invalid("the JWKS key could not be read");
  std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)> params(OSSL_PARAM_BLD_to_param(build.get()),
                                                                  &OSSL_PARAM_free);
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> context(
      EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr), &EVP_PKEY_CTX_free);
  EVP_PKEY* key = nullptr;
  if (!params || !context || EVP_PKEY_fromdata_init(context.get()) != 1 ||
      EVP_PKEY_fromdata(context.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1)
    invalid("the JWKS key could not be read");
  Pkey owned(key);
  // RFC 7518 §3.3: RS256 keys are 2048 bits or larger.
  if (EVP_PKEY_get_bits(key) < 2048) invalid("the JWKS key is shorter than 2048 bits");
  return owned;
}

/** The JWKS entry for `kid`: an RSA signing key for RS256 (a key restricted to other uses or algorithms is not). */
inline Pkey findKey(std::string_view jwks_json, const std::string& kid) {
  const auto jwks = nlohmann::json::parse(jwks_json, nullptr, false);
  if (!jwks.is_object() || !jwks.contains("keys") || !jwks["keys"].is_array())
    throw Error(ErrorCode::invalid_response, "the JWKS is not a JSON object with keys");
  for (const auto& jwk : jwks["keys"]) {
    if (!jwk.is_object() || jwk.value("kty", "") != "RSA" || jwk.value("kid", "") != kid) continue;
    if (jwk.contains("use") && jwk["use"] != "sig") continue;
    if (jwk.contains("alg") && jwk["alg"] != "RS256") continue;
    const auto n = base64urlDecode(jwk.value("n", "")), e = base64urlDecode(jwk.value("e", ""));
    if (!n || !e || n->empty() || e->empty()) invalid("the JWKS key " + kid + " has no usable n and e");
    return rsaPublicKey(*n, *e);
  }
  invalid("no RS256 key in the JWKS has kid " + kid);
}

inline bool verifyRs256(EVP_PKEY* key, std::string_view signed_part, const std::string& signature) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  return context && EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, key) == 1 &&
         EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1;
}

inline nlohmann::json jsonPart(std::string_view part, const char* what) {
  const auto bytes = base64urlDecode(part);
  auto json = bytes ? nlohmann::json::parse(*bytes, nullptr, false) : nlohmann::json();
  if (!json.is_object()) invalid(std::string("the ID token ") + what + " is not a base64url JSON object");
  return json;
}

inline std::int64_t numericDate(const nlohmann::json& payload, const char* name, bool required) {
  const auto it = payload.find(name);
  if (it == payload.end() && !required) return 0;
  if (it == payload.end() || !it->is_number()) invalid(std::string("the ID token has no numeric ") + name);
  return static_cast<std::int64_t>(it->get<double>());
}

}  // namespace gatehouse::detail

GATEHOUSE_EXPORT namespace gatehouse {

/** Validates an ID token from the token endpoint; throws invalid_id_token, expired or nonce_mismatch. */
inline IdTokenClaims validateIdToken(const Client& client, std::string_view id_token, std::string_view jwks_json,
                                     const IdTokenExpectations& expected) {
  using detail::invalid;
  const auto first = id_token.find('.');
  const auto second = first == std::string_view::npos ? first : id_token.find('.', first + 1);
  if (second == std::string_view::npos || id_token.find('.', second + 1) != std::string_view::npos)
    invalid("the ID token is not a compact JWS");
  const auto header = detail::jsonPart(id_token.substr(0, first), "header");
  // RFC 8725 §3.1: the algorithm is fixed by the client, never taken from the token (no "none", no HS256).
  if (header.value("alg", "") != "RS256") invalid("the ID token is not signed with RS256");
  if (!header.contains("kid") || !header["kid"].is_string()) invalid("the ID token header has no kid");
  const auto signature = detail::base64urlDecode(id_token.substr(second + 1));
  const auto key = detail::findKey(jwks_json, header["kid"].get<std::string>());
  if (!signature || !detail::verifyRs256(key.get(), id_token.substr(0, second), *signature))
    invalid("the ID token signature does not verify");

  const auto payload = detail::jsonPart(id_token.substr(first + 1, second - first - 1), "payload");
  const auto text = [&](const char* name) {
    const auto it = payload.find(name);
    return it != payload.end() && it->is_string() ? it->get<std::string>() : std::string{};
  };
  IdTokenClaims claims;
  claims.iss = text("iss");
  claims.sub = text("sub");
  claims.azp = text("azp");
  claims.nonce = text("nonce");
  claims.sid = text("sid");
  claims.acr = text("acr");
  claims.json = payload.dump();
  if (claims.iss != client.provider.issuer) invalid("the ID token issuer is " + claims.iss);
  if (claims.sub.empty()) invalid("the ID token has no sub");
  if (const auto aud = payload.find("aud"); aud != payload.end() && aud->is_string()) {
    claims.aud.push_back(aud->get<std::string>());
  } else if (aud != payload.end() && aud->is_array()) {
    for (const auto& entry : *aud)
      if (entry.is_string()) claims.aud.push_back(entry.get<std::string>());
  }
  if (std::find(claims.aud.begin(), claims.aud.end(), client.client_id) == claims.aud.end())
    invalid("the ID token is not for this client (aud)");
  // OIDC Core §3.1.3.7 steps 4–5: with several audiences azp is required; when present it must be this client.
  if ((claims.aud.size() > 1 || payload.contains("azp")) && claims.azp != client.client_id)
    invalid("the ID token was issued to another client (azp)");

  const auto now = std::chrono::duration_cast<std::chrono::seconds>(expected.now.time_since_epoch()).count();
  const auto leeway = expected.leeway.count();
  claims.exp = detail::numericDate(payload, "exp", true);
  claims.iat = detail::numericDate(payload, "iat", true);
  claims.auth_time = detail::numericDate(payload, "auth_time", false);
  if (now > claims.exp + leeway) throw Error(ErrorCode::expired, "the ID token has expired");
  if (claims.iat > now + leeway) invalid("the ID token is issued in the future");
  if (detail::numericDate(payload, "nbf", false) > now + leeway) invalid("the ID token is not valid yet (nbf)");

  if (expected.nonce && claims.nonce != *expected.nonce)
    throw Error(ErrorCode::nonce_mismatch, "the ID token does not carry the nonce this sign-in sent");
  // §3.1.3.6: the left half of SHA-256 of the access token; Gatehouse always sends it.
  const auto digest = detail::sha256(expected.access_token);
  if (text("at_hash") != detail::base64urlEncode(reinterpret_cast<const unsigned char*>(digest.data()), 16))
    invalid("the ID token does not belong to this access token (at_hash)");
  return claims;
}

}  // namespace gatehouse

#endif
