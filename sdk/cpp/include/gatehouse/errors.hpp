// One exception type with a closed set of codes, so callers `switch (error.code())`; token and authorization
// errors also carry the server's `error` and `error_description` (RFC 6749 §4.1.2.1, §5.2).
#ifndef GATEHOUSE_ERRORS_HPP
#define GATEHOUSE_ERRORS_HPP
#include "dependencies.hpp"

GATEHOUSE_EXPORT namespace gatehouse {

enum class ErrorCode {
  state_mismatch,       // the callback's state is not the one sent (RFC 6749 §10.12)
  issuer_mismatch,      // the callback's iss is missing or another issuer's (RFC 9207 §2.4)
  authorization_error,  // the callback carries an error instead of a code
  token_error,          // the token endpoint refused: error() and errorDescription() are the server's
  nonce_mismatch,       // the ID token's nonce is not the one sent (OIDC Core §3.1.3.7)
  invalid_id_token,     // signature, alg, kid, iss, aud, azp, iat, nbf or at_hash failed
  expired,              // the ID token's exp has passed
  invalid_response,     // a server answer (discovery, JWKS, token, userinfo) is not what the protocol says
  userinfo_error,       // userinfo refused the access token (RFC 6750 §3.1)
};

inline std::string_view toString(ErrorCode code) {
  switch (code) {
    case ErrorCode::state_mismatch: return "state_mismatch";
    case ErrorCode::issuer_mismatch: return "issuer_mismatch";
    case ErrorCode::authorization_error: return "authorization_error";
    case ErrorCode::token_error: return "token_error";
    case ErrorCode::nonce_mismatch: return "nonce_mismatch";
    case ErrorCode::invalid_id_token: return "invalid_id_token";
    case ErrorCode::expired: return "expired";
    case ErrorCode::invalid_response: return "invalid_response";
    case ErrorCode::userinfo_error: return "userinfo_error";
  }
  return "unknown";
}

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message, std::string error = {}, std::string description = {})
      : std::runtime_error(std::string(toString(code)) + ": " + message),
        code_(code),
        error_(std::move(error)),
        description_(std::move(description)) {}
  ErrorCode code() const noexcept { return code_; }
  /** The server's `error` code (token_error, authorization_error, userinfo_error), else empty. */
  const std::string& error() const noexcept { return error_; }
  const std::string& errorDescription() const noexcept { return description_; }

 private:
  ErrorCode code_;
  std::string error_;
  std::string description_;
};

}  // namespace gatehouse

#endif
