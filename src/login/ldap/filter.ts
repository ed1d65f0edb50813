// Builds search filters from configured templates. A value from a user (the sign-in subject) or from the directory
// (a DN) is escaped per RFC 4515 §3 before it enters a filter, so `*)(uid=*` is a literal string, never filter syntax.

/** RFC 4515 §3: in an assertion value `*`, `(`, `)`, `\` and NUL must be written as `\` and two hex digits. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Replaces every `{name}` placeholder with its escaped value. */
export function fillFilter(template: string, values: Record<string, string>): string {
  return template.replace(/\{([a-z]+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : escapeFilterValue(value);
  });
}
