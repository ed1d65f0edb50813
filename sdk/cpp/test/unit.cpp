// Unit tests of the gatehouse helper, built twice by the Makefile: against the module (import gatehouse;) and
// against the header fallback (-DGATEHOUSE_HEADER). Each check prints its name; any failure exits 1.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#ifdef GATEHOUSE_HEADER
#include <gatehouse/gatehouse.hpp>
#else
import gatehouse;
#endif

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

/** Runs `action` and checks it throws gatehouse::Error with `code`. */
void expectError(gatehouse::ErrorCode code, const std::string& what, const std::function<void()>& action) {
  try {
    action();
    check(false, what + " (nothing thrown)");
  } catch (const gatehouse::Error& error) {
    check(error.code() == code, what + " (" + error.what() + ")");
  }
}

std::string b64(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  int value = 0, bits = 0;
  for (unsigned char c : bytes) {
    value = ((value << 8) | c) & 0xffff;  // at most 14 bits are pending
    bits += 8;
    while (bits >= 6) out += alphabet[(value >> (bits -= 6)) & 63];
  }
  if (bits > 0) out += alphabet[(value << (6 - bits)) & 63];
  return out;
}

std::string sha256(const std::string& text) {
  unsigned char digest[32];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(digest), size);
}

/** An RS256 signer with its JWKS, standing in for Gatehouse's keyring. */
struct Signer {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  std::string kid = "test-key";
  ~Signer() { EVP_PKEY_free(key); }

  std::string bn(const char* name) const {
    BIGNUM* value = nullptr;
    EVP_PKEY_get_bn_param(key, name, &value);
    std::string bytes(BN_num_bytes(value), '\0');
    BN_bn2bin(value, reinterpret_cast<unsigned char*>(bytes.data()));
    BN_free(value);
    return bytes;
  }
  std::string jwks() const {
    nlohmann::json jwk{{"kty", "RSA"}, {"use", "sig"}, {"alg", "RS256"}, {"kid", kid},
                       {"n", b64(bn(OSSL_PKEY_PARAM_RSA_N))}, {"e", b64(bn(OSSL_PKEY_PARAM_RSA_E))}};
    return nlohmann::json{{"keys", {jwk}}}.dump();
  }
  std::string sign(const nlohmann::json& header, const nlohmann::json& payload) const {
    const auto input = b64(header.dump()) + "." + b64(payload.dump());
    EVP_MD_CTX* context = EVP_MD_CTX_new();
    std::size_t size = 0;
    EVP_DigestSignInit(context, nullptr, EVP_sha256(), nullptr, key);
    EVP_DigestSign(context, nullptr, &size, reinterpret_cast<const unsigned char*>(input.data()), input.size());
    std::string signature(size, '\0');
    EVP_DigestSign(context, reinterpret_cast<unsigned char*>(signature.data()), &size,
                   reinterpret_cast<const unsigned char*>(input.data()), input.size());
    EVP_MD_CTX_free(context);
    return input + "." + b64(signature);
  }
};

gatehouse::Client testClient() {
  gatehouse::Client client;
  client.provider = gatehouse::parseDiscovery(
      R"({"issuer":"https://id.example.test","authorization_endpoint":"https://id.example.test/oauth/authorize",
          "token_endpoint":"https://id.example.test/oauth/token","userinfo_endpoint":"https://id.example.test/oauth/userinfo",
          "jwks_uri":"https://id.example.test/.well-known/jwks.json","authorization_response_iss_parameter_supported":true})",
      "https://id.example.test");
  client.client_id = "cli_native";
  client.redirect_uri = "http://127.0.0.1:8765/callback";
  client.scope = "openid offline_access";
  return client;
}

std::string queryValue(const std::string& url, const std::string& name) {
  const auto start = url.find((url.find('?' + name + '=') != std::string::npos ? '?' : '&') + name + '=');
  if (start == std::string::npos) return {};
  const auto from = start + name.size() + 2;
  return url.substr(from, url.find('&', from) - from);
}

void loginAndRequests() {
  const auto client = testClient();
  const auto login = gatehouse::beginLogin(client, {.prompt = "login", .max_age = 300, .login_hint = "a b@c"});
  check(login.state.size() == 43 && login.nonce.size() == 43 && login.code_verifier.size() == 43,
        "state, nonce and verifier are 256-bit base64url");
  check(login.state != login.nonce && login.nonce != login.code_verifier, "state, nonce and verifier differ");
  check(gatehouse::beginLogin(client).state != login.state, "each login draws new randomness");
  const auto& url = login.authorization_url;
  check(url.starts_with("https://id.example.test/oauth/authorize?response_type=code&client_id=cli_native&"),
        "the authorization URL starts at the endpoint with response_type=code");
  check(b64(sha256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "the tests' S256 is RFC 7636 Appendix B's");
  check(queryValue(url, "code_challenge") == b64(sha256(login.code_verifier)), "code_challenge is S256 of the verifier");
  check(queryValue(url, "code_challenge_method") == "S256", "code_challenge_method=S256");
  check(queryValue(url, "redirect_uri") == "http%3A%2F%2F127.0.0.1%3A8765%2Fcallback", "redirect_uri is encoded");
  check(queryValue(url, "scope") == "openid%20offline_access", "scope is encoded");
  check(queryValue(url, "state") == login.state && queryValue(url, "nonce") == login.nonce, "state and nonce sent");
  check(queryValue(url, "prompt") == "login" && queryValue(url, "max_age") == "300" &&
            queryValue(url, "login_hint") == "a%20b%40c",
        "prompt, max_age and login_hint sent");
  check(url.find("secret") == std::string::npos, "no secret in the authorization URL");

  auto withResource = client;
  withResource.resources = {"https://api.example.test/"};
  const auto code = gatehouse::authorizationCodeRequest(withResource, login, "the/code");
  check(code.method == "POST" && code.url == "https://id.example.test/oauth/token", "code request: POST token endpoint");
  check(code.body == "grant_type=authorization_code&code=the%2Fcode&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2F"
                     "callback&code_verifier=" + login.code_verifier +
                     "&client_id=cli_native&resource=https%3A%2F%2Fapi.example.test%2F",
        "code request: form body with verifier, client_id and resource, no secret");
  check(code.headers.size() == 2 && code.headers[0].name == "Content-Type" &&
            code.headers[0].value == "application/x-www-form-urlencoded",
        "code request: form content type, no Authorization header");
  const auto refresh = gatehouse::refreshRequest(client, "rt+1");
  check(refresh.body == "grant_type=refresh_token&refresh_token=rt%2B1&client_id=cli_native", "refresh request body");
  const auto userinfo = gatehouse::userInfoRequest(client, "at");
  check(userinfo.method == "GET" && userinfo.url == "https://id.example.test/oauth/userinfo" &&
            userinfo.headers[0].value == "Bearer at" && userinfo.body.empty(),
        "userinfo request: GET with Bearer");
  check(gatehouse::discoveryRequest("https://id.example.test/").url ==
            "https://id.example.test/.well-known/openid-configuration",
        "discovery request URL");
  expectError(gatehouse::ErrorCode::issuer_mismatch, "discovery naming another issuer is refused",
              [] { gatehouse::parseDiscovery(R"({"issuer":"https://evil.test","authorization_endpoint":"a",
                  "token_endpoint":"t","userinfo_endpoint":"u","jwks_uri":"j"})", "https://id.example.test"); });
  expectError(gatehouse::ErrorCode::invalid_response, "discovery without endpoints is refused",
              [] { gatehouse::parseDiscovery(R"({"issuer":"https://id.example.test"})", "https://id.example.test"); });
}

void callbacks() {
  const auto client = testClient();
  const auto login = gatehouse::beginLogin(client);
  const auto base = client.redirect_uri + "?code=c%2B1&state=" + login.state;
  const auto iss = "&iss=https%3A%2F%2Fid.example.test";
  check(gatehouse::checkCallback(client, login, base + iss) == "c+1", "a good callback gives the decoded code");
  expectError(gatehouse::ErrorCode::state_mismatch, "another state is state_mismatch",
              [&] { gatehouse::checkCallback(client, login, client.redirect_uri + "?code=c&state=x" + iss); });
  expectError(gatehouse::ErrorCode::state_mismatch, "no state is state_mismatch",
              [&] { gatehouse::checkCallback(client, login, client.redirect_uri + "?code=c" + iss); });
  expectError(gatehouse::ErrorCode::issuer_mismatch, "another iss is issuer_mismatch",
              [&] { gatehouse::checkCallback(client, login, base + "&iss=https%3A%2F%2Fevil.test"); });
  expectError(gatehouse::ErrorCode::issuer_mismatch, "no iss from an issuer that always sends it is issuer_mismatch",
              [&] { gatehouse::checkCallback(client, login, base); });
  expectError(gatehouse::ErrorCode::invalid_response, "a repeated state is refused",
              [&] { gatehouse::checkCallback(client, login, base + iss + "&state=" + login.state); });
  try {
    gatehouse::checkCallback(client, login,
                             client.redirect_uri + "?error=access_denied&error_description=no+thanks&state=" +
                                 login.state + iss);
    check(false, "an error callback throws");
  } catch (const gatehouse::Error& error) {
    check(error.code() == gatehouse::ErrorCode::authorization_error && error.error() == "access_denied" &&
              error.errorDescription() == "no thanks",
          "an error callback is authorization_error with the server's error and description");
  }
}

void tokenResponses() {
  const auto tokens = gatehouse::parseTokenResponse(
      200, R"({"access_token":"at","token_type":"Bearer","expires_in":600,"scope":"openid","refresh_token":"rt","id_token":"it"})");
  check(tokens.access_token == "at" && tokens.expires_in == 600 && tokens.refresh_token == "rt" &&
            tokens.id_token == "it",
        "a token response is read");
  try {
    gatehouse::parseTokenResponse(400, R"({"error":"invalid_grant","error_description":"the code was used"})");
    check(false, "a refused token request throws");
  } catch (const gatehouse::Error& error) {
    check(error.code() == gatehouse::ErrorCode::token_error && error.error() == "invalid_grant" &&
              error.errorDescription() == "the code was used",
          "a refused token request is token_error with the server's error and description");
  }
  expectError(gatehouse::ErrorCode::token_error, "a non-JSON token answer is token_error",
              [] { gatehouse::parseTokenResponse(502, "<html>"); });
  const auto profile = gatehouse::parseUserInfo(200, R"({"sub":"usr_1","name":"Ada","email_verified":true})");
  check(profile.sub == "usr_1" && profile.name == "Ada" && profile.email_verified, "userinfo is read");
  expectError(gatehouse::ErrorCode::userinfo_error, "a refused userinfo is userinfo_error",
              [] { gatehouse::parseUserInfo(401, R"({"error":"invalid_token"})"); });
}

void idTokens() {
  const Signer signer;
  const auto client = testClient();
  const auto now = std::chrono::system_clock::now();
  const auto epoch = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const std::string accessToken = "the-access-token";
  const auto atHash = b64(sha256(accessToken).substr(0, 16));
  const nlohmann::json header{{"alg", "RS256"}, {"kid", signer.kid}, {"typ", "JWT"}};
  const nlohmann::json good{{"iss", "https://id.example.test"}, {"sub", "usr_1"},     {"aud", "cli_native"},
                            {"exp", epoch + 600},               {"iat", epoch},       {"azp", "cli_native"},
                            {"nonce", "n-1"},                   {"at_hash", atHash}, {"sid", "ses_1"}};
  const gatehouse::IdTokenExpectations expected{.nonce = "n-1", .access_token = accessToken, .now = now};
  const auto jwks = signer.jwks();
  const auto validate = [&](const std::string& token) {
    return gatehouse::validateIdToken(client, token, jwks, expected);
  };
  const auto with = [&](const char* name, const nlohmann::json& value) {
    auto payload = good;
    payload[name] = value;
    return signer.sign(header, payload);
  };

  const auto claims = validate(signer.sign(header, good));
  check(claims.sub == "usr_1" && claims.sid == "ses_1" && claims.aud == std::vector<std::string>{"cli_native"},
        "a good ID token validates and gives its claims");
  auto refreshExpected = expected;
  refreshExpected.nonce.reset();
  check(gatehouse::validateIdToken(client, signer.sign(header, good), jwks, refreshExpected).sub == "usr_1",
        "without an expected nonce the nonce is not compared");

  const auto bad = gatehouse::ErrorCode::invalid_id_token;
  auto tampered = signer.sign(header, good);
  tampered[tampered.find('.') + 5] ^= 1;
  expectError(bad, "a changed payload fails the signature", [&] { validate(tampered); });
  expectError(bad, "alg none is refused", [&] {
    validate(b64(R"({"alg":"none","kid":"test-key"})") + "." + b64(good.dump()) + ".");
  });
  expectError(bad, "an unknown kid is refused", [&] {
    validate(signer.sign({{"alg", "RS256"}, {"kid", "other"}}, good));
  });
  const Signer stranger;
  expectError(bad, "another key's signature is refused", [&] {
    validate(stranger.sign(header, good));
  });
  expectError(bad, "another issuer is refused", [&] { validate(with("iss", "https://evil.test")); });
  expectError(bad, "another audience is refused", [&] { validate(with("aud", "cli_other")); });
  expectError(bad, "several audiences without azp are refused", [&] {
    auto payload = good;
    payload["aud"] = {"cli_native", "cli_other"};
    payload.erase("azp");
    validate(signer.sign(header, payload));
  });
  check(validate(with("aud", {"cli_native", "cli_other"})).aud.size() == 2,
        "several audiences with this client as azp are accepted");
  expectError(bad, "another azp is refused", [&] { validate(with("azp", "cli_other")); });
  expectError(gatehouse::ErrorCode::expired, "an expired token is expired", [&] { validate(with("exp", epoch - 61)); });
  check(validate(with("exp", epoch - 30)).sub == "usr_1", "expiry within the leeway is accepted");
  expectError(bad, "a token issued in the future is refused", [&] { validate(with("iat", epoch + 3600)); });
  expectError(bad, "a token not valid yet (nbf) is refused", [&] { validate(with("nbf", epoch + 3600)); });
  expectError(bad, "a missing iat is refused", [&] {
    auto payload = good;
    payload.erase("iat");
    validate(signer.sign(header, payload));
  });
  expectError(gatehouse::ErrorCode::nonce_mismatch, "another nonce is nonce_mismatch",
              [&] { validate(with("nonce", "n-2")); });
  expectError(gatehouse::ErrorCode::nonce_mismatch, "a missing nonce is nonce_mismatch", [&] {
    auto payload = good;
    payload.erase("nonce");
    validate(signer.sign(header, payload));
  });
  expectError(bad, "another access token's at_hash is refused", [&] { validate(with("at_hash", b64("x"))); });
  expectError(bad, "a token that is not a JWS is refused", [&] { validate("a.b"); });
}

}  // namespace

void deviceGrant() {
  auto client = testClient();
  expectError(gatehouse::ErrorCode::invalid_response, "no device endpoint in discovery: no device request",
              [&] { gatehouse::deviceAuthorizationRequest(client); });
  client.provider.device_authorization_endpoint = "https://id.example.test/oauth/device_authorization";
  client.resources = {"https://api.example.test/"};
  const auto request = gatehouse::deviceAuthorizationRequest(client);
  check(request.method == "POST" && request.url == "https://id.example.test/oauth/device_authorization",
        "the device request POSTs to the discovered endpoint");
  check(request.body == "client_id=cli_native&scope=openid%20offline_access&resource=https%3A%2F%2Fapi.example.test%2F",
        "the device request sends client_id, scope and resource");
  const auto device = gatehouse::parseDeviceAuthorization(
      200, R"({"device_code":"dc","user_code":"WDJB-MJHT","verification_uri":"https://id.example.test/device",
              "verification_uri_complete":"https://id.example.test/device?user_code=WDJB-MJHT","expires_in":600,"interval":5})");
  check(device.device_code == "dc" && device.user_code == "WDJB-MJHT" && device.expires_in == 600 &&
            device.interval == 5 && device.verification_uri_complete.ends_with("user_code=WDJB-MJHT"),
        "the device answer is read");
  expectError(gatehouse::ErrorCode::token_error, "a refused device request is token_error", [] {
    gatehouse::parseDeviceAuthorization(400, R"({"error":"unauthorized_client","error_description":"no"})");
  });
  const auto poll = gatehouse::deviceCodeRequest(client, device);
  check(poll.body.starts_with("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=dc&"),
        "a poll sends the device_code grant type and the device code");
  const auto pending = gatehouse::parseDevicePoll(400, R"({"error":"authorization_pending"})", 5);
  check(!pending.done && pending.interval == 5, "authorization_pending: poll again at the same interval");
  const auto slower = gatehouse::parseDevicePoll(400, R"({"error":"slow_down"})", 5);
  check(!slower.done && slower.interval == 10, "slow_down: poll again 5 seconds slower");
  const auto done = gatehouse::parseDevicePoll(200, R"({"access_token":"at","token_type":"Bearer","expires_in":600})", 5);
  check(done.done && done.tokens.access_token == "at", "tokens end the polling");
  try {
    gatehouse::parseDevicePoll(400, R"({"error":"access_denied","error_description":"The person denied the request"})", 5);
    check(false, "access_denied throws");
  } catch (const gatehouse::Error& error) {
    check(error.code() == gatehouse::ErrorCode::token_error && error.error() == "access_denied",
          "access_denied throws token_error with the server's code");
  }
}

int main() {
  loginAndRequests();
  deviceGrant();
  callbacks();
  tokenResponses();
  idTokens();
  std::printf("%s\n", failures == 0 ? "all passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
