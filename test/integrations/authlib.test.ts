// docs/integrations.md "authlib": a Python web app (test/integrations/authlib-app/app.py) signing a person in through
// Gatehouse with authlib's requests client as the doc configures it (test/integrations/snippets/authlib_gatehouse.py):
// a confidential `web` client with client_secret_post and PKCE S256; the code exchange, the ID token verified by
// authlib, userinfo, a rotating refresh (the replaced refresh token refused), then revocation and RP-initiated logout. Debian's python3-authlib.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, freePort, startListeningIssuer } from '../helpers/oauth-server.ts';

const APP = path.join(import.meta.dirname, 'authlib-app', 'app.py');

function requireAuthlib() {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import authlib, requests'], { stdio: 'ignore' });
  } catch {
    throw new Error('authlib is missing: apt-get install python3-authlib python3-requests (.ci/run installs them)');
  }
}

/** The app on `port`, for the client `env` names; resolves once it listens. */
async function startAuthlibApp(port: number, env: { ISSUER: string; CLIENT_ID: string; CLIENT_SECRET: string }) {
  const child = spawn('/usr/bin/python3', [APP, String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  after(() => child.kill());
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the authlib app exited (${code}): ${stderr}`)));
    createInterface({ input: child.stdout }).once('line', () => resolve());
  });
  return `http://127.0.0.1:${port}`;
}

describe('authlib (Python) with Gatehouse', async () => {
  requireAuthlib();
  const t = await startListeningIssuer();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
    redirectUris: [`${origin}/callback`],
    postLogoutRedirectUris: [`${origin}/signed-out`],
  });
  const app = await startAuthlibApp(port, { ISSUER: t.issuer, CLIENT_ID: client.id, CLIENT_SECRET: secret as string });
  const sub = await makeIdentity(t.sql, { displayName: 'Dorothy Vaughan', email: 'dorothy@example.test' });
  const { cookie: gatehouseSession } = await makeSession(t, sub);
  const post = (jar: CookieJar, route: string) => jar.fetch(`${app}${route}`, { method: 'POST' });
  const openGrants = async () =>
    (await t.sql`select count(*)::int as n from oauth_grants where client_id = ${client.id} and revoked_at is null`)[0]
      ?.n;

  /** A browser signed in at Gatehouse signs in at the app; returns the app's cookie jar and the authorization request. */
  async function signIn() {
    const jar = new CookieJar();
    const login = await jar.fetch(`${app}/login`);
    assert.equal(login.status, 302);
    const authorize = new URL(login.headers.get('location') as string);
    const callback = await browse(authorize, gatehouseSession);
    const back = await jar.fetch(callback);
    assert.equal(back.status, 302, await back.clone().text());
    assert.equal(back.headers.get('location'), '/profile');
    return { jar, authorize };
  }

  test('signing in sends PKCE S256, exchanges the code with client_secret_post, and the app shows the verified claims and userinfo', async () => {
    const { jar, authorize } = await signIn();
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${t.issuer}/oauth/authorize`);
    assert.equal(authorize.searchParams.get('client_id'), client.id);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.match(authorize.searchParams.get('code_challenge') ?? '', /^[\w-]{43}$/);

    const profile = await jar.fetch(`${app}/profile`);
    assert.equal(profile.status, 200, await profile.clone().text());
    const { claims, userinfo } = (await profile.json()) as Record<string, Record<string, unknown>>;
    assert.equal(claims?.sub, sub);
    assert.equal(claims?.iss, t.issuer);
    assert.equal(claims?.aud, client.id);
    assert.equal(claims?.nonce, authorize.searchParams.get('nonce'));
    assert.deepEqual(userinfo, { sub, name: 'Dorothy Vaughan', email: 'dorothy@example.test', email_verified: true });
  });

  test('refreshing gives the app a new refresh token (rotation) and an access token userinfo accepts; the replaced one is refused', async () => {
    const { jar } = await signIn();
    const refreshed = await post(jar, '/refresh');
    assert.equal(refreshed.status, 200, await refreshed.clone().text());
    const { rotated, replaced, userinfo } = (await refreshed.json()) as {
      rotated: boolean;
      replaced: string;
      userinfo: { sub: string };
    };
    assert.equal(rotated, true);
    assert.equal(userinfo.sub, sub);

    // Presented again after the grace for honest parallel retries: refused, and the family is revoked, so the app's
    // own next refresh fails as well.
    t.clock.advance(10);
    const replay = await fetch(`${t.issuer}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: replaced,
        client_id: client.id,
        client_secret: secret as string,
      }),
    });
    assert.equal(replay.status, 400);
    assert.equal(((await replay.json()) as { error: string }).error, 'invalid_grant');
    const again = await post(jar, '/refresh');
    assert.equal(again.status, 502);
    assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
  });

  test('signing out revokes the grant and ends the Gatehouse session, back at the registered post-logout page', async () => {
    const { jar } = await signIn();
    // The first test's sign-in left its grant open too; this one's is the one the app revokes.
    const open = await openGrants();
    const out = await post(jar, '/logout');
    assert.equal(out.status, 302, await out.clone().text());
    const logout = new URL(out.headers.get('location') as string);
    assert.equal(`${logout.origin}${logout.pathname}`, `${t.issuer}/oauth/logout`);
    assert.equal(await openGrants(), open - 1);

    const ended = await fetch(logout, { redirect: 'manual', headers: { cookie: gatehouseSession } });
    assert.equal(ended.status, 302, await ended.clone().text());
    assert.equal(ended.headers.get('location'), `${app}/signed-out`);
    assert.equal((await jar.fetch(`${app}/profile`)).status, 401);
    // Signing in to the app again finds no Gatehouse session: the browser is sent to Gatehouse's sign-in page.
    const again = await jar.fetch(`${app}/login`);
    const authorize = await fetch(again.headers.get('location') as string, {
      redirect: 'manual',
      headers: { cookie: gatehouseSession },
    });
    assert.equal(authorize.status, 302);
    assert.match(authorize.headers.get('location') ?? '', /^\/signin\?/);
  });
});
