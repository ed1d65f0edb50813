// What `gatehouse serve` loads before its first request (docs/decisions.md "Idle RSS: sign-in libraries load on first
// use"): the libraries of methods a node may never use (Ethereum, Farcaster, SAML, LDAP, passkeys, the gateway) load
// with the first request that needs them, and a supervisor of several workers does not load the application at all.
// Each is a few to tens of MB resident on every node; a static import put back would bring it back unnoticed.
// The test runner gives each test file its own process, so nothing here was loaded before the hook.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { MAIN } from './helpers/cli.ts';
import { recordResolvedModules } from './helpers/resolved-modules.ts';

const resolved = recordResolvedModules();

const packageLoaded = (name: string) => [...resolved].some((url) => url.includes(`/node_modules/${name}/`));
const sourceLoaded = (file: string) => [...resolved].some((url) => url.endsWith(`/src/${file}`));

const LOADED_ON_FIRST_USE = [
  'viem',
  '@farcaster/auth-client',
  '@node-saml/node-saml',
  '@peculiar/x509',
  'ldapts',
  '@fastify/reply-from',
  '@simplewebauthn/server',
  '@zxcvbn-ts/core',
  'qrcode',
  'nodemailer',
  // Redirect providers (openid-client, oauth4webapi), SAML documents (xmldom, xpath), a parent-domain passkey RP ID
  // (tldts), the account page's session list (ua-parser-js): issue 37.
  'openid-client',
  'oauth4webapi',
  '@xmldom/xmldom',
  'xpath',
  'tldts',
  'ua-parser-js',
  // private_key_jwt client authentication (src/oauth/jose-library.ts); DPoP thumbprints are node:crypto's.
  'jose',
];

// A node of several workers on its own database server hands over to a fresh image of itself that only supervises
// (src/supervisor-handover.ts): what it loads stays resident for the node's life. First in this file, so that no
// other test has loaded anything yet.
test('the handed-over supervisor loads neither the command line nor the configuration', async () => {
  await import('../src/supervisor-main.ts');
  assert.ok(sourceLoaded('supervisor.ts') && sourceLoaded('supervisor-log.ts'), 'the check sees what it does load');
  const loaded = (file: string) => sourceLoaded(file);
  assert.deepEqual(
    ['cli/program.ts', 'cli/serve.ts', 'config/load.ts', 'config/validate.ts', 'config/schema.ts', 'app.ts'].filter(
      loaded,
    ),
    [],
  );
  assert.deepEqual(['commander', 'smol-toml', 'postgres', 'fastify', 'typebox', 'pino'].filter(packageLoaded), []);
});

// main.ts is the handed-over image's entry: run it as one, in a process of its own, with a variable that holds no
// handover (it then stops at once), and list what it loaded.
test('main.ts run as a handed-over supervisor loads the supervisor, not the command line', () => {
  const hook = `data:text/javascript,${encodeURIComponent(`
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const answer = next(specifier, context); seen.push(answer.url); return answer; } });
    process.on('exit', () => process.stdout.write(JSON.stringify(seen)));`)}`;
  const run = spawnSync(process.execPath, ['--import', hook, MAIN], {
    env: { ...process.env, GATEHOUSE_SUPERVISOR: 'not a handover' },
    encoding: 'utf8',
  });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /^gatehouse serve: GATEHOUSE_SUPERVISOR holds no handover/);
  const urls = JSON.parse(run.stdout) as string[];
  assert.ok(
    urls.some((url) => url.endsWith('/src/supervisor-main.ts')),
    'the check sees what the entry loads',
  );
  assert.deepEqual(
    urls.filter((url) => /\/src\/(cli\/program|cli\/serve|config\/load)\.ts$|\/node_modules\/commander\//.test(url)),
    [],
  );
});

test('serve and the supervisor load no part of the application, nor the database client', async () => {
  await import('../src/cli/serve.ts');
  await import('../src/supervisor.ts');
  assert.equal(sourceLoaded('app.ts'), false);
  assert.equal(sourceLoaded('server.ts'), false);
  // The database preparation runs in a short-lived process, or is imported for an embedded PostgreSQL only.
  assert.equal(sourceLoaded('prepare-database.ts'), false);
  assert.equal(packageLoaded('postgres'), false);
  assert.ok(sourceLoaded('prepare-in-child.ts'), 'the check sees what the supervisor does load');
});

test('the application loads none of the libraries that wait for their first request', async () => {
  await import('../src/server.ts');
  assert.ok(sourceLoaded('app.ts') && packageLoaded('fastify'), 'the check sees what the application does load');
  assert.deepEqual(LOADED_ON_FIRST_USE.filter(packageLoaded), []);
  // Never at all: prom-client's index requires it for exemplars the service does not use (src/metrics/prom-client.ts).
  assert.ok(packageLoaded('prom-client'), 'the check sees the metrics library');
  assert.equal(packageLoaded('@opentelemetry/api'), false);
});

// TypeBox: its type engine (builders) and Value functions are 677 module files and about 12 MB per process; its JSON
// Schema checker 235 files and about 16 MB. The schemas are built by src/schema/builders.ts and a configuration that
// fits is confirmed by src/schema/fits.ts; the checker is loaded only to explain a value that does not fit
// (docs/decisions.md, "Smaller processes").
test('a valid configuration is read without loading TypeBox', async () => {
  await import('../src/cli/serve.ts');
  await import('../src/supervisor.ts');
  await import('../src/server.ts');
  const { loadConfig } = await import('../src/config/load.ts');
  const loaded = loadConfig({ env: {}, cwd: '/nonexistent-gatehouse-dir' });
  assert.ok(sourceLoaded('config/load.ts') && loaded.config.server.issuer !== '', 'the configuration was read');
  assert.deepEqual(
    [...resolved].filter((url) => url.includes('/node_modules/typebox/')),
    [],
  );
});

// An ES import of node:http loads Node's own fetch implementation (1.6 MB of an idle worker's heap) through the lazy
// WebSocket exports; src/http/node-http.ts explains. process.moduleLoadList (undocumented, so untyped) names every
// Node-internal module loaded.
const { moduleLoadList } = process as unknown as { moduleLoadList: string[] };
const fetchLoaded = () => moduleLoadList.some((name) => name.includes('internal/deps/undici'));
const fetchLoadedBeforeImports = fetchLoaded();

test('neither the supervisor nor the application loads Node’s own fetch implementation', async () => {
  assert.equal(fetchLoadedBeforeImports, false, 'the test runner had loaded it before any import');
  await import('../src/cli/serve.ts');
  await import('../src/supervisor.ts');
  await import('../src/server.ts');
  await import('../src/tls/serving.ts');
  await import('../src/gateway/upgrade.ts');
  await import('../src/operations/service-probe.ts');
  await import('../src/delivery/webhook.ts');
  assert.ok(sourceLoaded('gateway/upgrade.ts') && sourceLoaded('tls/challenge-listener.ts'), 'the check sees them');
  assert.equal(fetchLoaded(), false);
});
