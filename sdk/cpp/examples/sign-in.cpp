// A native app's sign-in with the gatehouse module; `send` is the app's own HTTP transport (libcurl, Qt, Boost...).
import gatehouse;
#include <string>

struct Response { long status; std::string body; std::string location; };
Response send(const gatehouse::HttpRequest& request);   // yours: send method, url, headers and body as given
std::string openBrowserAndWaitForRedirect(const std::string& url);  // yours: system browser + loopback listener

gatehouse::UserInfo signIn(gatehouse::Client& client) {
  client.provider = gatehouse::parseDiscovery(send(gatehouse::discoveryRequest("https://id.example.com")).body,
                                              "https://id.example.com");
  const auto login = gatehouse::beginLogin(client);  // state, nonce, PKCE S256 and the URL to open
  const auto code = gatehouse::checkCallback(client, login, openBrowserAndWaitForRedirect(login.authorization_url));
  const auto answer = send(gatehouse::authorizationCodeRequest(client, login, code));
  const auto tokens = gatehouse::parseTokenResponse(answer.status, answer.body);
  gatehouse::validateIdToken(client, tokens.id_token, send(gatehouse::jwksRequest(client)).body,
                             {.nonce = login.nonce, .access_token = tokens.access_token});
  const auto me = send(gatehouse::userInfoRequest(client, tokens.access_token));
  return gatehouse::parseUserInfo(me.status, me.body);
}
