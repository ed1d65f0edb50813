// `return_to` is only ever a local path (DESIGN.md "no open redirect anywhere"): one leading "/", not "//" or "/\"
// (browsers read both as scheme-relative URLs to another host), no control characters or backslashes that a
// browser might normalize into one of those. Anything else falls back to "/".
// The web UI imports this module for its sign-in and enrollment pages, so browser and tests share one rule.
const MAX_LENGTH = 2048;

export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LENGTH) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  // Browsers strip tabs and newlines from URLs and treat "\" like "/", so "/\t/evil.example" would escape.
  if (hasUnsafeCharacter(value)) return '/';
  try {
    // The resolved URL must stay on the same (dummy) origin.
    const resolved = new URL(value, 'https://gatehouse.invalid');
    if (resolved.origin !== 'https://gatehouse.invalid') return '/';
  } catch {
    return '/';
  }
  return value;
}

function hasUnsafeCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || code === 0x5c) return true;
  }
  return false;
}
