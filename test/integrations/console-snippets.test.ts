// The console's overview hands out filled-in configurations for the client libraries (web/src/pages/console/
// integration-snippets.ts). They are text, so nothing runs them; the configurations that are run are the ones in
// test/integrations/snippets/. Every option those set, with the same literal value, and every library call they make
// must appear in the console's version too, so the two cannot drift apart.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { transformSync } from 'esbuild';
import { snippetsFor, snippetValues } from '../../web/src/pages/console/integration-snippets.ts';
import type { Client } from '../../web/src/pages/console/types.ts';

/** Which tested configuration each console snippet corresponds to, and the client kind the tested one is for. */
const TESTED: Record<string, { file: string; kind: Client['kind'] }> = {
  'openid-client': { file: 'openid-client.ts', kind: 'web' },
  oauth4webapi: { file: 'oauth4webapi.ts', kind: 'native' },
  'Auth.js': { file: 'authjs.ts', kind: 'web' },
  'express-openid-connect': { file: 'express-openid-connect.ts', kind: 'web' },
  'oidc-client-ts': { file: 'oidc-client-ts.ts', kind: 'browser' },
};

/** Options whose value is the client's own, not the library's: the console fills in the client's registered scopes. */
const CLIENT_VALUES = new Set(['scope']);
/** Options of a tested variant, not of the configuration the console offers. */
const VARIANTS: Record<string, Set<string>> = {
  'authjs.ts': new Set(['idToken']),
  'express-openid-connect.ts': new Set(['backchannelLogout', 'store']),
};

/** Types, comments and layout stripped, strings in one quoting style: the two sources then compare as code. */
const normalized = (code: string) => transformSync(code, { loader: 'ts', format: 'esm', minifyWhitespace: true }).code;

function facts(source: string, ignore = new Set<string>()) {
  const js = normalized(source);
  const code = js.replace(/"[^"]*"/g, '""'); // an option or a call inside a string does not count
  return {
    options: new Set([...code.matchAll(/\b(\w+):/g)].map((m) => m[1] as string).filter((k) => !ignore.has(k))),
    literals: new Set(
      [...js.matchAll(/\b(\w+):("[^"]*"|true|false|\d+)/g)]
        .filter((m) => !ignore.has(m[1] as string) && !CLIENT_VALUES.has(m[1] as string))
        .map((m) => `${m[1]}: ${m[2]}`),
    ),
    calls: new Set([...code.matchAll(/\b(?:client|oauth)\.(\w+)\(|\bnew (\w+)\(/g)].map((m) => m[1] ?? `new ${m[2]}`)),
  };
}

const missing = (tested: Set<string>, shown: Set<string>) => [...tested].filter((x) => !shown.has(x));

function consoleSnippets(kind: Client['kind']) {
  const client = {
    client_id: 'gh_client_7f3a',
    kind,
    redirect_uris: ['https://app.example.org/auth/callback'],
    scopes: ['openid', 'profile', 'email'],
  } as Client;
  return snippetsFor(snippetValues('https://id.example.org', client), kind);
}

describe('the console overview snippets', () => {
  test('each library the console offers has a tested configuration', () => {
    const offered = new Set(
      (['web', 'browser', 'native'] as const).flatMap((k) => consoleSnippets(k)).map((s) => s.library),
    );
    assert.deepEqual([...offered].sort(), Object.keys(TESTED).sort());
  });

  for (const [library, { file, kind }] of Object.entries(TESTED))
    test(`${library} for a ${kind} client sets the options and makes the calls of test/integrations/snippets/${file}`, () => {
      const shown = consoleSnippets(kind).find((s) => s.library === library);
      assert.ok(shown, `the console offers ${library} to a ${kind} client`);
      const tested = facts(readFileSync(new URL(`snippets/${file}`, import.meta.url), 'utf8'), VARIANTS[file]);
      const console = facts(shown.code);
      assert.deepEqual(missing(tested.options, console.options), [], 'options the console leaves out');
      assert.deepEqual(missing(tested.literals, console.literals), [], 'option values that differ');
      assert.deepEqual(missing(tested.calls, console.calls), [], 'library calls the console leaves out');
    });

  test('the comparison sees a drifted option', () => {
    const drifted = consoleSnippets('web')
      .find((s) => s.library === 'Auth.js')
      ?.code.replace(
        "token_endpoint_auth_method: 'client_secret_post'",
        "token_endpoint_auth_method: 'client_secret_basic'",
      );
    const tested = facts(readFileSync(new URL('snippets/authjs.ts', import.meta.url), 'utf8'), VARIANTS['authjs.ts']);
    assert.deepEqual(missing(tested.literals, facts(drifted ?? '').literals), [
      'token_endpoint_auth_method: "client_secret_post"',
    ]);
  });
});
