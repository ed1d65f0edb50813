// The cookies a browser keeps for one site, for tests that drive a relying party with fetch: each Set-Cookie
// replaces the cookie of the same name, and a cookie set with an expiry in the past is dropped.
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  take(response: Response): Response {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired) this.#cookies.delete(name);
      else this.#cookies.set(name, pair.slice(at + 1));
    }
    return response;
  }

  get header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** fetch without following redirects, sending and keeping this site's cookies. */
  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    return this.take(
      await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: this.header } }),
    );
  }
}
