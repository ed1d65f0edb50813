// `host:port` as server.listen and tls.acme_http_listen write it. A file of its own so that what only reads an
// address (the handed-over supervisor's start notes, src/supervisor-main.ts) does not load the configuration checks.

/** The host (brackets of an IPv6 address removed) and port, or null when `value` is not `host:port`. */
export function parseListen(value: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
  if (!match?.[1] || !match[2]) return null;
  const port = Number(match[2]);
  if (port > 65535) return null;
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}
