// HTTP calls to real Gatehouse processes (fetch, not inject): to a node directly or through the load balancer.
// A node in trusted-proxy mode refuses a request without X-Forwarded-For, so a direct call carries one, as the
// proxy's would; through HAProxy the proxy writes it.
export interface HttpAnswer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
  text: string;
}

export interface CallOptions {
  form?: Record<string, string>;
  json?: unknown;
  headers?: Record<string, string>;
  /** X-Forwarded-For for a direct call to a trusted-proxy node; null sends none. */
  forwardedFor?: string | null;
  /** A request that takes longer fails the test instead of hanging it (default 15 s). */
  timeoutMs?: number;
}

export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.forwardedFor !== null) headers['x-forwarded-for'] = options.forwardedFor ?? '127.0.0.1';
  let body: string | undefined;
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    headers.origin ??= 'http://localhost:8080';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  if (text.startsWith('{')) json = JSON.parse(text) as Record<string, unknown>;
  return { status: response.status, headers: response.headers, json, text };
}

/** `name=value` of a cookie the response set, or ''. */
export function setCookie(answer: HttpAnswer, name: string): string {
  for (const line of answer.headers.getSetCookie()) {
    const pair = line.split(';')[0] ?? '';
    if (pair.startsWith(`${name}=`) && pair.length > name.length + 1) return pair;
  }
  return '';
}

/** Calls `probe` until it returns a value other than undefined, or throws at the deadline. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
