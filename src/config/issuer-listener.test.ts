import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scratchDir } from '../../test/helpers/config.ts';
import { issuerListenerMismatch } from './issuer-listener.ts';
import { loadConfig } from './load.ts';

describe('issuerListenerMismatch', () => {
  const reaches: [string, string][] = [
    ['http://localhost:8080', '127.0.0.1:8080'],
    ['http://localhost:8080', '[::1]:8080'],
    ['http://localhost:8080', '0.0.0.0:8080'],
    ['http://127.0.0.1:8090', '127.0.0.1:8090'],
    ['http://localhost', 'localhost:80'],
    ['http://localhost:8080', '127.0.0.1:0'],
    ['https://id.acme.test', '127.0.0.1:8080'],
    ['https://id.example.com', '10.0.0.5:9000'],
  ];
  for (const [issuer, listen] of reaches)
    test(`finds nothing wrong with issuer ${issuer} and listener ${listen}`, () => {
      assert.equal(issuerListenerMismatch(issuer, listen), null);
    });

  const misses: [string, string][] = [
    ['http://localhost:8080', '127.0.0.1:8081'],
    ['http://localhost', '127.0.0.1:8080'],
    ['http://127.0.0.1:8080', '[::1]:8080'],
    ['http://localhost:8080', '192.168.1.5:8080'],
  ];
  for (const [issuer, listen] of misses)
    test(`says issuer ${issuer} does not reach listener ${listen}`, () => {
      const port = new URL(issuer).port || '80';
      assert.equal(
        issuerListenerMismatch(issuer, listen),
        `the issuer ${issuer} is port ${port} on ${new URL(issuer).hostname}, but the listener is ${listen}: links to the issuer will not reach this server unless something on port ${port} forwards to it`,
      );
    });
});

describe('the development issuer', () => {
  const load = (env: NodeJS.ProcessEnv) => loadConfig({ env, cwd: scratchDir() }).config.server;

  test('follows GATEHOUSE_LISTEN: http://localhost with the listener port', () => {
    // Spread: the development defaults are parsed TOML, whose tables have no prototype.
    assert.deepEqual(
      { ...load({ GATEHOUSE_LISTEN: '127.0.0.1:8090' }) },
      {
        ...load({}),
        issuer: 'http://localhost:8090',
        listen: '127.0.0.1:8090',
      },
    );
  });

  test('is http://localhost:8080 by default and for port 0, whose port is known only once listening', () => {
    assert.equal(load({}).issuer, 'http://localhost:8080');
    assert.equal(load({ GATEHOUSE_LISTEN: '127.0.0.1:0' }).issuer, 'http://localhost:8080');
  });

  test('is GATEHOUSE_ISSUER when set, whatever the listener', () => {
    assert.equal(
      load({ GATEHOUSE_ISSUER: 'http://localhost:9000', GATEHOUSE_LISTEN: '127.0.0.1:8090' }).issuer,
      'http://localhost:9000',
    );
  });

  test('stays as written in a config file: only the development instance derives it', () => {
    const file = path.join(scratchDir(), 'gatehouse.toml');
    const lines = ['[server]', 'issuer = "https://id.acme.test"', '[organization]', 'id = "acme"'];
    writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    assert.equal(
      loadConfig({ configPath: file, env: { GATEHOUSE_LISTEN: '127.0.0.1:8090' } }).config.server.issuer,
      'https://id.acme.test',
    );
  });
});
