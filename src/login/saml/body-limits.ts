// How large a SAML body may be. server.body_limit_bytes (64 KiB by default) suits every identity request but not a
// SAML response: identity providers put every group of a person into it, signed, and base64 then form encoding
// grow it by about 40 %, so a directory with a few thousand groups sends several hundred kilobytes. These limits are
// per route (the ACS and the admin routes that take identity provider metadata); every other route keeps the global
// one. A larger body is refused with 413 payload_too_large before it is parsed.

/** The ACS (HTTP-POST binding): about 750 KB of response XML after base64 and form encoding. */
export const ACS_BODY_LIMIT_BYTES = 1_048_576;

/**
 * The admin routes that take idp_metadata_xml: its schema allows 200,000 characters, up to 4 bytes each in UTF-8, and
 * JSON escapes; 1 MiB holds that with the other (bounded) fields.
 */
export const ADMIN_METADATA_BODY_LIMIT_BYTES = 1_048_576;

/** A route's own limit never goes below the operator's global one (raising that raises every route). */
export const routeBodyLimit = (own: number, global: number) => Math.max(own, global);
