/**
 * Links that carry a secret put it in the URL fragment (never sent to a server, so never in access logs or Referer).
 * Read the named values, then drop the fragment from the address bar and history so the secret does not linger on
 * screen. Null unless every name is present.
 */
function takeFragment<K extends string>(names: readonly K[]): Record<K, string> | null {
  const params = new URLSearchParams(location.hash.slice(1));
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  const values = {} as Record<K, string>;
  for (const name of names) {
    const value = params.get(name);
    if (!value) return null;
    values[name] = value;
  }
  return values;
}

/** Verification links: `#verification_id=…&secret=…`. */
export function takeVerificationFragment(): { verification_id: string; secret: string } | null {
  return takeFragment(['verification_id', 'secret'] as const);
}

/** The owner's enrollment link: `/enroll#token=…`. */
export function takeEnrollmentToken(): string | null {
  return takeFragment(['token'] as const)?.token ?? null;
}
