// gatehouse-device-login: a command-line tool that signs its user in with the device authorization grant (RFC 8628).
// It prints a code and where to enter it, polls while the person approves on their phone, checks the ID token and
// prints who signed in. The transport is libcurl; the gatehouse module builds and reads every request.
// Usage: gatehouse-device-login ISSUER CLIENT_ID [SCOPE]   (the client must be allowed the device grant)
#include <curl/curl.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

import gatehouse;

namespace {

struct Response {
  long status = 0;
  std::string body;
};

std::size_t collect(char* data, std::size_t size, std::size_t count, void* target) {
  static_cast<std::string*>(target)->append(data, size * count);
  return size * count;
}

/** Sends a gatehouse::HttpRequest as described, with this tool's name as its User-Agent (the approval page shows it). */
Response send(const gatehouse::HttpRequest& request) {
  CURL* curl = curl_easy_init();
  if (!curl) throw std::runtime_error("curl: cannot start");
  Response response;
  curl_slist* headers = nullptr;
  for (const auto& header : request.headers) headers = curl_slist_append(headers, (header.name + ": " + header.value).c_str());
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "gatehouse-device-login/1.0");
  if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  const CURLcode result = curl_easy_perform(curl);
  if (result == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (result != CURLE_OK) throw std::runtime_error(std::string("curl: ") + curl_easy_strerror(result));
  return response;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: gatehouse-device-login ISSUER CLIENT_ID [SCOPE]\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int status = 0;
  try {
    gatehouse::Client client;
    client.client_id = argv[2];
    client.scope = argc == 4 ? argv[3] : "openid profile email offline_access";
    client.provider = gatehouse::parseDiscovery(send(gatehouse::discoveryRequest(argv[1])).body, argv[1]);

    const auto started = send(gatehouse::deviceAuthorizationRequest(client));
    const auto device = gatehouse::parseDeviceAuthorization(started.status, started.body);
    std::printf("To sign in, open %s and enter the code %s\n", device.verification_uri.c_str(), device.user_code.c_str());
    if (!device.verification_uri_complete.empty()) std::printf("Or open %s\n", device.verification_uri_complete.c_str());
    std::fflush(stdout);

    // RFC 8628 §3.5: wait the interval before every poll; slow_down makes it 5 s longer for good.
    gatehouse::DevicePoll poll{false, {}, device.interval};
    while (!poll.done) {
      std::this_thread::sleep_for(std::chrono::seconds(poll.interval));
      const auto answer = send(gatehouse::deviceCodeRequest(client, device));
      poll = gatehouse::parseDevicePoll(answer.status, answer.body, poll.interval);
    }
    const auto& tokens = poll.tokens;
    // No nonce: the device grant has no authorization request to carry one.
    const auto claims =
        gatehouse::validateIdToken(client, tokens.id_token, send(gatehouse::jwksRequest(client)).body,
                                   {.nonce = {}, .access_token = tokens.access_token});
    const auto me = send(gatehouse::userInfoRequest(client, tokens.access_token));
    const auto profile = gatehouse::parseUserInfo(me.status, me.body);
    std::printf("Signed in as %s\nsub=%s\nname=%s\nemail=%s\nscope=%s\nrefresh_token=%s\n", profile.name.c_str(),
                claims.sub.c_str(), profile.name.c_str(), profile.email.c_str(), tokens.scope.c_str(),
                tokens.refresh_token.empty() ? "none" : "issued");
  } catch (const gatehouse::Error& error) {
    std::fprintf(stderr, "gatehouse error %s: %s (%s)\n", std::string(gatehouse::toString(error.code())).c_str(),
                 error.what(), error.errorDescription().c_str());
    status = 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    status = 1;
  }
  curl_global_cleanup();
  return status;
}
