// Base64url (RFC 4648 §5, no padding), form/URL percent-encoding and query parsing: the narrow encodings OAuth
// messages use, and the CSPRNG and SHA-256 they are built from.
#ifndef GATEHOUSE_ENCODING_HPP
#define GATEHOUSE_ENCODING_HPP
#include "dependencies.hpp"
#include "errors.hpp"

namespace gatehouse::detail {

inline constexpr std::string_view kBase64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

inline std::string base64urlEncode(const unsigned char* data, std::size_t size) {
  std::string out;
  out.reserve((size * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 2 < size; i += 3) {
    const std::uint32_t v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    for (int shift : {18, 12, 6, 0}) out += kBase64url[(v >> shift) & 63];
  }
  if (size - i == 1) {
    const std::uint32_t v = data[i] << 16;
    out += kBase64url[(v >> 18) & 63];
    out += kBase64url[(v >> 12) & 63];
  } else if (size - i == 2) {
    const std::uint32_t v = (data[i] << 16) | (data[i + 1] << 8);
    for (int shift : {18, 12, 6}) out += kBase64url[(v >> shift) & 63];
  }
  return out;
}

inline std::string base64urlEncode(std::string_view text) {
  return base64urlEncode(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

/** Strict decoding: only the base64url alphabet, no padding, no impossible length; nullopt otherwise. */
inline std::optional<std::string> base64urlDecode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    const auto index = kBase64url.find(c);
    if (index == std::string_view::npos) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(index);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

/** Percent-encodes all but RFC 3986 unreserved characters: safe in a query and in a form body alike. */
inline std::string percentEncode(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

using Parameters = std::vector<std::pair<std::string, std::string>>;

inline std::string formEncode(const Parameters& parameters) {
  std::string out;
  for (const auto& [name, value] : parameters) {
    if (!out.empty()) out += '&';
    out += percentEncode(name) + '=' + percentEncode(value);
  }
  return out;
}

inline int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/** application/x-www-form-urlencoded decoding of one name or value ('+' is a space). */
inline std::string percentDecode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hexValue(text[i + 1]) >= 0 && hexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

/** The query of a URL (or a bare query string), decoded; a fragment is ignored. */
inline Parameters parseQuery(std::string_view url) {
  if (const auto hash = url.find('#'); hash != std::string_view::npos) url = url.substr(0, hash);
  if (const auto mark = url.find('?'); mark != std::string_view::npos) url = url.substr(mark + 1);
  Parameters out;
  while (!url.empty()) {
    const auto amp = url.find('&');
    const auto pair = url.substr(0, amp);
    url = amp == std::string_view::npos ? std::string_view{} : url.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    out.emplace_back(percentDecode(pair.substr(0, eq)),
                     eq == std::string_view::npos ? std::string{} : percentDecode(pair.substr(eq + 1)));
  }
  return out;
}

/** The value of `name`, nullopt when absent; a repeated parameter is refused (RFC 6749 §3.1). */
inline std::optional<std::string> single(const Parameters& parameters, std::string_view name) {
  std::optional<std::string> found;
  for (const auto& [key, value] : parameters) {
    if (key != name) continue;
    if (found) throw Error(ErrorCode::invalid_response, "the callback repeats " + std::string(name));
    found = value;
  }
  return found;
}

/** 32 bytes from OpenSSL's CSPRNG, base64url: 256 bits in 43 characters (RFC 7636 §4.1). */
inline std::string randomToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("gatehouse: RAND_bytes failed");
  return base64urlEncode(bytes, sizeof bytes);
}

inline std::string sha256(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("gatehouse: SHA-256 failed");
  return std::string(reinterpret_cast<char*>(digest), size);
}

}  // namespace gatehouse::detail

#endif
