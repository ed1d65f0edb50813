// The one normalisation applied before a redirect, post-logout or resource URI sent by a client is compared with a
// registered one: an http(s) URI with an empty path gets the path `/`. RFC 3986 §6.2.3 and RFC 9110 §4.2.3 make the
// two spellings equivalent, registration stores the WHATWG form (which writes the `/`), and clients send the other
// (window.location.origin, Spring's {baseUrl}, express-openid-connect's idpLogout, `resource=https://api.example.com`).
// Nothing else is normalised: case, default ports, percent-encoding, dot segments, a trailing slash on a non-empty
// path, query and fragment are all still compared exactly (RFC 9700 §4.1.3).

// Scheme and authority: the authority ends at the first `/`, `?` or `#` (RFC 3986 §3.2). Lower-case schemes only,
// as registration stores them; `HTTPS://` stays as sent and so matches nothing.
const SCHEME_AND_AUTHORITY = /^https?:\/\/[^/?#]*/;

/** `uri` with `/` as its path when it is an http(s) URI whose path is empty; any other string unchanged. */
export function normalizeEmptyPath(uri: string): string {
  const head = SCHEME_AND_AUTHORITY.exec(uri)?.[0];
  if (head === undefined || uri[head.length] === '/') return uri;
  return `${head}/${uri.slice(head.length)}`;
}
