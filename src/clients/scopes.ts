// Scope strings (RFC 6749 §3.3): space-delimited scope-tokens of printable ASCII without `"` or `\`.
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

export const isScopeToken = (value: string) => SCOPE_TOKEN.test(value);

/** Splits a scope parameter into distinct tokens; null when a token is malformed. */
export function parseScope(value: string | undefined): string[] | null {
  if (value === undefined || value === '') return [];
  const tokens = value.split(' ');
  if (!tokens.every(isScopeToken)) return null;
  return [...new Set(tokens)];
}

export const formatScope = (scopes: readonly string[]) => scopes.join(' ');

/** The scopes Gatehouse itself defines; resources define the rest. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
