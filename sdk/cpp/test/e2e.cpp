// End-to-end: the module's request descriptions sent with libcurl to a running Gatehouse. Discovery, JWKS, the
// authorization request (as a browser signed in with the given session cookie would send it), the callback check,
// the code exchange with ID token validation, userinfo, and a refresh whose tokens are validated again.
// Usage: e2e ISSUER CLIENT_ID REDIRECT_URI COOKIE. Prints key=value lines; exits 1 with the error on failure.
#include <curl/curl.h>

#include <cstdio>
#include <stdexcept>
#include <string>

import gatehouse;

namespace {

struct Response {
  long status = 0;
  std::string body;
  std::string location;
};

std::size_t collect(char* data, std::size_t size, std::size_t count, void* target) {
  static_cast<std::string*>(target)->append(data, size * count);
  return size * count;
}

/** Sends a gatehouse::HttpRequest as described; redirects are not followed (the callback is one). */
Response send(const gatehouse::HttpRequest& request, const std::string& cookie = {}) {
  CURL* curl = curl_easy_init();
  Response response;
  curl_slist* headers = nullptr;
  for (const auto& header : request.headers) headers = curl_slist_append(headers, (header.name + ": " + header.value).c_str());
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
  }
  if (!cookie.empty()) curl_easy_setopt(curl, CURLOPT_COOKIE, cookie.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  const CURLcode result = curl_easy_perform(curl);
  if (result != CURLE_OK) throw std::runtime_error(std::string("curl: ") + curl_easy_strerror(result));
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  char* location = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) response.location = location;
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return response;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: e2e ISSUER CLIENT_ID REDIRECT_URI COOKIE\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  try {
    gatehouse::Client client;
    client.client_id = argv[2];
    client.redirect_uri = argv[3];
    client.scope = "openid profile email offline_access";
    const auto discovery = send(gatehouse::discoveryRequest(argv[1]));
    client.provider = gatehouse::parseDiscovery(discovery.body, argv[1]);
    const auto jwks = send(gatehouse::jwksRequest(client)).body;

    const auto login = gatehouse::beginLogin(client);
    const auto authorization = send({"GET", login.authorization_url, {}, {}}, argv[4]);
    if (authorization.location.empty())
      throw std::runtime_error("the authorization request was answered " + std::to_string(authorization.status));
    const auto code = gatehouse::checkCallback(client, login, authorization.location);

    const auto exchanged = send(gatehouse::authorizationCodeRequest(client, login, code));
    const auto tokens = gatehouse::parseTokenResponse(exchanged.status, exchanged.body);
    const auto claims =
        gatehouse::validateIdToken(client, tokens.id_token, jwks, {.nonce = login.nonce, .access_token = tokens.access_token});
    std::printf("sub=%s\nnonce_matches=%d\nscope=%s\n", claims.sub.c_str(), claims.nonce == login.nonce,
                tokens.scope.c_str());

    const auto userinfo = send(gatehouse::userInfoRequest(client, tokens.access_token));
    const auto profile = gatehouse::parseUserInfo(userinfo.status, userinfo.body);
    std::printf("userinfo_sub=%s\nuserinfo_name=%s\nuserinfo_email=%s\n", profile.sub.c_str(), profile.name.c_str(),
                profile.email.c_str());

    const auto refreshed = send(gatehouse::refreshRequest(client, tokens.refresh_token));
    const auto renewed = gatehouse::parseTokenResponse(refreshed.status, refreshed.body);
    // OIDC Core §12.2: the refreshed ID token keeps the sign-in's nonce and subject.
    const auto renewedClaims =
        gatehouse::validateIdToken(client, renewed.id_token, jwks, {.nonce = login.nonce, .access_token = renewed.access_token});
    std::printf("refreshed_sub=%s\nrefresh_rotated=%d\n", renewedClaims.sub.c_str(),
                !renewed.refresh_token.empty() && renewed.refresh_token != tokens.refresh_token);
    const auto after = send(gatehouse::userInfoRequest(client, renewed.access_token));
    std::printf("refreshed_userinfo_sub=%s\n", gatehouse::parseUserInfo(after.status, after.body).sub.c_str());

    // The spent code again: refused by the server, surfaced as token_error with its error code.
    const auto replay = send(gatehouse::authorizationCodeRequest(client, login, code));
    try {
      gatehouse::parseTokenResponse(replay.status, replay.body);
      std::printf("replay_error=none\n");
    } catch (const gatehouse::Error& error) {
      std::printf("replay_error=%s:%s\n", std::string(gatehouse::toString(error.code())).c_str(), error.error().c_str());
    }
  } catch (const gatehouse::Error& error) {
    std::fprintf(stderr, "gatehouse error %s: %s (%s)\n", std::string(gatehouse::toString(error.code())).c_str(),
                 error.what(), error.errorDescription().c_str());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
  curl_global_cleanup();
  return 0;
}
