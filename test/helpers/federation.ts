// Federated sign-in against a real upstream: a second listening Gatehouse is the OpenID Connect provider (real
// discovery, real signed ID tokens), with a client registered for the downstream's shared callback; the downstream
// Gatehouse offers it as the generic provider `corp`. A CookieJar plays the downstream browser, the upstream session
// cookie the person signed in at the upstream.
import type { Config } from '../../src/config/schema.ts';
import { startTestApp, type TestApp } from './app.ts';
import { type DeepPartial, genericOidc, makeConfig } from './config.ts';
import { CookieJar } from './cookie-jar.ts';
import { makeClient, makeIdentity, makeSession } from './oauth-fixtures.ts';
import { browse, freePort, startListeningIssuer } from './oauth-server.ts';
import { providerSecretsDir } from './provider-secrets.ts';

export type Upstream = TestApp & { issuer: string };

export async function startUpstream(): Promise<Upstream> {
  return startListeningIssuer();
}

/** A listening downstream Gatehouse offering `upstream` as provider `corp` (and whatever `extra` adds). */
export async function startDownstream(
  upstream: Upstream,
  extra: DownstreamExtra = () => ({}),
  /** `localhost` keeps the two apps' cookies apart in one browser (cookies ignore ports); it listens on 127.0.0.1. */
  host = '127.0.0.1',
) {
  const registered = async (callback: string) => {
    const { client, secret } = await makeClient(upstream.sql, upstream.secrets.clientSecret, {
      redirectUris: [callback],
    });
    return { issuer: upstream.issuer, clientId: client.id, secret: secret as string };
  };
  return startDownstreamWith(registered, extra, host);
}

/** What a downstream knows of its upstream: the issuer and the client registered there for the shared callback. */
export interface UpstreamRegistration {
  issuer: string;
  clientId: string;
  secret: string;
}

export type DownstreamExtra = (issuer: string) => Pick<DeepPartial<Config>, 'self_service' | 'delivery' | 'login'> & {
  trustUpstreamMfa?: boolean;
  /** Named selections to point at the same upstream (as a stand-in for Google's, GitLab's or Slack's OIDC). */
  named?: ('google' | 'gitlab' | 'slack')[];
};

/** A listening downstream whose provider `corp` is whatever upstream `register` registers its callback URI at. */
export async function startDownstreamWith(
  register: (callback: string) => Promise<UpstreamRegistration>,
  extra: DownstreamExtra = () => ({}),
  host = '127.0.0.1',
) {
  const port = await freePort();
  const issuer = `http://${host}:${port}`;
  const upstream = await register(`${issuer}/auth/federated/callback`);
  const { trustUpstreamMfa, named = [], ...overrides } = extra(issuer);
  const namedConfig = Object.fromEntries(
    named.map((id) => [id, { enabled: true, client_id: upstream.clientId, issuer: upstream.issuer }]),
  );
  const secrets = Object.fromEntries(['corp', ...named].map((id) => [id, upstream.secret]));
  const config = makeConfig({
    server: { issuer },
    self_service: { enabled: true },
    // Account self-service (the account page, linking) needs delivery configured; nothing is sent in these tests.
    delivery: {
      kind: 'smtp',
      from: 'id@acme-robotics.dev',
      smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
    },
    secrets: { dir: providerSecretsDir(secrets) },
    providers: {
      ...namedConfig,
      oidc: [
        genericOidc({
          id: 'corp',
          name: 'Corp SSO',
          issuer: upstream.issuer,
          client_id: upstream.clientId,
          trust_upstream_mfa: trustUpstreamMfa ?? false,
        }),
      ],
    },
    ...overrides,
  });
  const t = await startTestApp({ config });
  await t.app.listen({ host: '127.0.0.1', port });
  return { ...t, url: issuer, issuer };
}

/** A person with an account at the upstream, signed in there. */
export async function upstreamPerson(upstream: Upstream, email: string, displayName = 'Grace Hopper') {
  const sub = await makeIdentity(upstream.sql, { email, displayName });
  const { cookie } = await makeSession(upstream, sub);
  return { sub, cookie };
}

export interface RoundTripOptions {
  jar?: CookieJar;
  start?: string;
  /** Changes the authorization request before the browser follows it (a tampered nonce, say). */
  tamperRequest?: (url: URL) => void;
  /** Changes the callback before the browser follows it (another iss, say). */
  tamperCallback?: (url: URL) => void;
  /** Follows the callback in this jar instead (another browser). */
  callbackJar?: CookieJar;
}

/** Start at the downstream, sign in at the upstream, come back to the shared callback. */
export async function roundTrip(downstream: { url: string }, upstreamCookie: string, o: RoundTripOptions = {}) {
  const jar = o.jar ?? new CookieJar();
  const started = await jar.fetch(
    `${downstream.url}${o.start ?? '/auth/federated/start?provider=corp&return_to=%2Fsettings'}`,
  );
  if (started.status !== 302) throw new Error(`start answered ${started.status}: ${await started.text()}`);
  const authorize = new URL(started.headers.get('location') ?? '');
  o.tamperRequest?.(authorize);
  const callback = await browse(authorize, upstreamCookie);
  o.tamperCallback?.(callback);
  const done = await (o.callbackJar ?? jar).fetch(callback);
  return { jar, authorize, callback, done, body: await done.text() };
}
