// SPEC.md: the values 0, test, dummy, example and placeholder stand for "configure later". A provider or
// delivery method holding one is deferred: not an error, not used, reported at startup and by `doctor`.

const PLACEHOLDER_VALUES = new Set(['0', 'test', 'dummy', 'example', 'placeholder']);

export function isPlaceholderValue(value: string): boolean {
  return PLACEHOLDER_VALUES.has(value.trim().toLowerCase());
}

/**
 * A host that can never receive real mail or webhooks: a placeholder word, or a name reserved for
 * documentation and testing (RFC 2606: example.com/net/org, .example, .invalid, .test).
 */
export function isPlaceholderHost(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  if (name === '' || isPlaceholderValue(name)) return true;
  if (['example.com', 'example.net', 'example.org'].some((d) => name === d || name.endsWith(`.${d}`))) return true;
  return ['.example', '.invalid', '.test'].some((suffix) => name.endsWith(suffix));
}

/** Hostnames for which setup must not default to the public ACME authority (SPEC.md "TLS"). */
export function isReservedHostname(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (['example.com', 'example.net', 'example.org'].some((d) => name === d || name.endsWith(`.${d}`))) return true;
  return name.endsWith('.test') || name.endsWith('.invalid');
}
