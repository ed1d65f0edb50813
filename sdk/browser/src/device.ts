// signInWithDevice(): the device authorization grant (RFC 8628) for an app on a device where typing a password is a
// chore (a TV app, a kiosk, a shared screen): it asks for a user code, hands it to the app to show, and polls the
// token endpoint until the person approved on their phone at the verification URI. The client is public (client_id
// only) and must be allowed the grant by an administrator; the ID token is verified as after a redirect sign-in.
import { type ClientConfig, DEFAULT_SCOPE, resources } from './config.ts';
import { discover } from './discovery.ts';
import { TokenError } from './errors.ts';
import { requestTokens, type Tokens } from './token.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.5: slow_down adds 5 seconds to the interval, for every later poll. */
const SLOW_DOWN_SECONDS = 5;

/** What the app shows the person: the code, where to type it, and (for a QR code or a link) both in one URL. */
export interface DeviceCode {
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | undefined;
  /** When the code stops working, in milliseconds since the epoch. */
  expiresAt: number;
}

export interface DeviceSignInOptions {
  /** Called once, as soon as the code is there: show it (and the verification URI) to the person. */
  onCode: (code: DeviceCode) => void;
  /** Stops polling; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

const wait = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

async function requestCodes(config: ClientConfig): Promise<DeviceAuthorization> {
  const metadata = await discover(config);
  const endpoint = (metadata as { device_authorization_endpoint?: unknown }).device_authorization_endpoint;
  if (typeof endpoint !== 'string')
    throw new TokenError('unsupported_grant_type', 'the issuer offers no device authorization endpoint', 0);
  const body = new URLSearchParams({ client_id: config.clientId, scope: config.scope ?? DEFAULT_SCOPE });
  const [resource, ...more] = resources(config);
  if (more.length > 0) throw new TokenError('invalid_target', 'the device grant takes one resource', 0);
  if (resource !== undefined) body.set('resource', resource);
  const response = await fetch(endpoint, { method: 'POST', body });
  const json = (await response.json().catch(() => ({}))) as Partial<DeviceAuthorization> & {
    error?: unknown;
    error_description?: unknown;
  };
  if (!response.ok || typeof json.device_code !== 'string' || typeof json.user_code !== 'string') {
    const error = typeof json.error === 'string' ? json.error : 'invalid_response';
    const description = typeof json.error_description === 'string' ? json.error_description : undefined;
    throw new TokenError(error, description, response.status);
  }
  return json as DeviceAuthorization;
}

/**
 * Signs in with the device authorization grant: resolves with the tokens once the person approved; rejects with a
 * TokenError when they denied (`access_denied`) or the code expired (`expired_token`), or with the signal's reason.
 */
export async function signInWithDevice(config: ClientConfig, options: DeviceSignInOptions): Promise<Tokens> {
  const codes = await requestCodes(config);
  const expiresAt = Date.now() + codes.expires_in * 1000;
  options.onCode({
    userCode: codes.user_code,
    verificationUri: codes.verification_uri,
    verificationUriComplete: codes.verification_uri_complete,
    expiresAt,
  });
  let interval = codes.interval ?? 5;
  for (;;) {
    await wait(interval * 1000, options.signal);
    try {
      // No nonce: the device flow has no authorization request to carry one.
      return await requestTokens(config, { grant_type: DEVICE_CODE_GRANT, device_code: codes.device_code }, undefined);
    } catch (error) {
      if (!(error instanceof TokenError)) throw error;
      if (error.error === 'slow_down') interval += SLOW_DOWN_SECONDS;
      else if (error.error !== 'authorization_pending') throw error;
    }
  }
}
