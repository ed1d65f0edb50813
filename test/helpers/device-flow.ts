// The device authorization grant (RFC 8628) from both ends, for tests: the device's side with oauth4webapi's helpers
// against a listening Gatehouse, and the person's answer on /device through its JSON API with a session cookie (the
// Chromium tests drive the page itself).
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp, TestClock } from './app.ts';
import { makeConfig } from './config.ts';
import { freePort } from './oauth-server.ts';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const insecure = { [oauth.allowInsecureRequests]: true };

export async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  return oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, insecure));
}

/** A device asks for codes, as oauth4webapi sends it (its own User-Agent unless `userAgent` says otherwise). */
export async function requestCodes(
  as: oauth.AuthorizationServer,
  clientId: string,
  parameters: Record<string, string> = {},
  options: { secret?: string; userAgent?: string } = {},
) {
  const auth = options.secret ? oauth.ClientSecretPost(options.secret) : oauth.None();
  const headers = options.userAgent ? { 'user-agent': options.userAgent } : undefined;
  const response = await oauth.deviceAuthorizationRequest(as, { client_id: clientId }, auth, parameters, {
    ...insecure,
    ...(headers ? { headers } : {}),
  });
  return oauth.processDeviceAuthorizationResponse(as, { client_id: clientId }, response);
}

/** One poll of the token endpoint; the raw Response, for processDeviceCodeResponse or an envelope check. */
export function poll(
  as: oauth.AuthorizationServer,
  clientId: string,
  deviceCode: string,
  options: { secret?: string; DPoP?: oauth.DPoPHandle } = {},
) {
  const auth = options.secret ? oauth.ClientSecretPost(options.secret) : oauth.None();
  return oauth.deviceCodeGrantRequest(as, { client_id: clientId }, auth, deviceCode, {
    ...insecure,
    ...(options.DPoP ? { DPoP: options.DPoP } : {}),
  });
}

/** The /device page's JSON API as the page calls it: same origin, JSON, the session cookie. */
export async function deviceApi(
  t: Pick<TestApp, 'url'>,
  path: '/oauth/device/lookup' | '/oauth/device/decision' | '/oauth/device/account',
  cookie: string,
  body?: Record<string, string>,
) {
  const response = await fetch(`${t.url}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { cookie, origin: t.url, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

/** The person approves (or denies) the code on /device. */
export async function decide(t: Pick<TestApp, 'url'>, cookie: string, userCode: string, decision: 'approve' | 'deny') {
  const answer = await deviceApi(t, '/oauth/device/decision', cookie, { user_code: userCode, decision });
  if (answer.status !== 200) throw new Error(`decision answered ${answer.status}: ${JSON.stringify(answer.json)}`);
  return answer.json;
}

/**
 * A clock that runs with real time (plus what a test advances): for tests where a real client (the browser SDK, the
 * C++ CLI) waits the interval between polls, which a standing test clock would answer with slow_down every time.
 */
export class RealTimeClock extends TestClock {
  #offset = 0;
  override now = (): Date => new Date(Date.now() + this.#offset);
  override advance(seconds: number): void {
    this.#offset += seconds * 1000;
  }
}

/** A listening Gatehouse on real time whose issuer is its loopback URL; `interval` is the polling interval told. */
export async function startRealTimeIssuer(interval = 1): Promise<TestApp & { issuer: string }> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const config = makeConfig({ server: { issuer }, device_authorization: { interval_seconds: interval } });
  const t = await startTestApp({ config, clock: new RealTimeClock(), listen: true, port });
  return { ...t, url: issuer, issuer };
}
