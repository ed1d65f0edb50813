// sdk/cpp: the C++26 module helper, built with clang-19 by its Makefile. The unit tests run against the module and
// the header fallback; the end-to-end binary sends the module's requests with libcurl to a listening Gatehouse and
// completes code + refresh + userinfo for a `native` client.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { startListeningIssuer } from '../helpers/oauth-server.ts';

const run = promisify(execFile);
const CPP = path.resolve(import.meta.dirname, '../../sdk/cpp');

describe('sdk/cpp with clang-19', () => {
  // Compiling the module and three programs takes a minute or more on a busy machine.
  before(() => run('make', ['-C', CPP, '-j2', 'all'], { maxBuffer: 1 << 24 }), { timeout: 600_000 });

  test('the unit tests pass through the module and through the header fallback', async () => {
    for (const binary of ['unit-module', 'unit-header']) {
      const { stdout } = await run(path.join(CPP, 'build', binary));
      assert.doesNotMatch(stdout, /^FAIL/m);
      assert.match(stdout, /^all passed$/m);
      assert.ok((stdout.match(/^ok /gm) ?? []).length >= 50, `${binary} ran its checks`);
    }
  });

  test('a native client signs in with code + PKCE, reads userinfo and refreshes through libcurl', async () => {
    const t = await startListeningIssuer();
    const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
      kind: 'native',
      redirectUris: ['http://127.0.0.1/callback'],
    });
    const sub = await makeIdentity(t.sql, { displayName: 'Dorothy Vaughan', email: 'dorothy@example.test' });
    const { cookie } = await makeSession(t, sub);
    // RFC 8252 §7.3: a loopback redirect URI matches on any port, as a native app's ephemeral listener needs.
    const { stdout } = await run(path.join(CPP, 'build', 'e2e'), [
      t.issuer,
      client.id,
      'http://127.0.0.1:49152/callback',
      cookie,
    ]);
    const output = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/=(.*)/s).slice(0, 2)),
    );
    assert.deepEqual(output, {
      sub,
      nonce_matches: '1',
      scope: 'openid profile email offline_access',
      userinfo_sub: sub,
      userinfo_name: 'Dorothy Vaughan',
      userinfo_email: 'dorothy@example.test',
      refreshed_sub: sub,
      refresh_rotated: '1',
      refreshed_userinfo_sub: sub,
      replay_error: 'token_error:invalid_grant',
    });
  });
});
