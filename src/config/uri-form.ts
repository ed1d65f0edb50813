// Audiences are compared as exact strings (RFC 8707 §2, RFC 9068 §4 `aud`), so one written in another form than the
// one a token carries never matches. The form is WHATWG URL serialisation, which is what a registered resource must
// be written in (src/admin/resources.ts): `https://api.example.com` is `https://api.example.com/`.

/** Why `value` is not in the normalized form tokens carry, or null when it is (or is not a URL at all). */
export function normalizedFormProblem(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const href = new URL(value).href;
  return href === value ? null : `must be written in normalized form: ${href}`;
}

/**
 * A route policy's required_audience, written as the `aud` it must equal: the issuer exactly as server.issuer
 * writes it (the audience of the service's own access tokens), or a resource in normalized form.
 */
export function audienceFormProblem(value: string, issuer: string): string | null {
  if (value === issuer) return null;
  if (value.replace(/\/$/, '') === issuer.replace(/\/$/, ''))
    return `must be the issuer exactly as server.issuer writes it (${issuer}), the audience of the service's own tokens`;
  return normalizedFormProblem(value);
}
