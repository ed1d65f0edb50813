// `gatehouse setup` on a terminal: the questions it asks for missing flags, how it asks again, and what it writes.
// The conversation runs through the command's Terminal seam: the test answers each question as it is asked.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { commandValues } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { loadConfig } from '../config/load.ts';
import { readInstallation } from '../identity/bootstrap.ts';
import { UsageError } from './args.ts';
import type { Terminal } from './prompts.ts';
import { runSetup } from './setup.ts';

const DOMAIN = 'Identity domain (e.g. id.example.com)';
const ORG_NAME = 'Organization name';
const ORG_ID = 'Organization ID (stable, e.g. acme)';
const OWNER = 'Initial owner subject (email address)';

/** A terminal that answers each question, in order, once it has been asked; records everything shown. */
function scriptedTerminal(script: [question: string, answer: string][], options: { endAfter?: number } = {}) {
  const input = new PassThrough();
  const pending = [...script];
  let transcript = '';
  let answered = 0;
  const prompts = new Writable({
    write(chunk, _encoding, done) {
      transcript += chunk.toString();
      const next = pending[0];
      if (next && transcript.endsWith(`${next[0]}: `)) {
        pending.shift();
        answered += 1;
        transcript += `${next[1]}\n`; // what the person typed, as a terminal would echo it
        setImmediate(() => {
          input.write(`${next[1]}\n`);
          if (answered === options.endAfter) input.end();
        });
      }
      done();
    },
  });
  let report = '';
  const output = new Writable({
    write(chunk, _encoding, done) {
      report += chunk.toString();
      done();
    },
  });
  const terminal: Terminal = { input, prompts, output, interactive: true };
  return {
    terminal,
    get transcript() {
      return transcript;
    },
    get report() {
      return report;
    },
    get unanswered() {
      return pending.length;
    },
  };
}

describe('gatehouse setup prompts', () => {
  test('asks for each missing answer, asks again with the reason, and writes the config from the answers', async () => {
    const dir = scratchDir();
    const { sql, url } = await createTestDatabase({ migrated: false });
    const configFile = path.join(dir, 'gatehouse.toml');
    const session = scriptedTerminal([
      [DOMAIN, 'https://id.acme.test/'],
      [DOMAIN, 'id.acme.test'],
      [ORG_NAME, '   '],
      [ORG_NAME, 'Acme \u202Ecitobor'],
      [ORG_NAME, 'Acme Robotics'],
      [ORG_ID, 'Acme Co'],
      [ORG_ID, 'acme'],
      [OWNER, 'alice'],
      [OWNER, 'alice@acme.test'],
    ]);

    const code = await runSetup(
      await commandValues(['setup'], ['--config', configFile, '--database-url', url]),
      session.terminal,
    );

    assert.equal(code, 0);
    assert.equal(
      session.transcript,
      [
        `${DOMAIN}: https://id.acme.test/`,
        '  must be a host name, e.g. id.example.com; try again.',
        `${DOMAIN}: id.acme.test`,
        `${ORG_NAME}:    `,
        '  must not be empty; try again.',
        `${ORG_NAME}: Acme \u202Ecitobor`,
        '  remove the invisible character U+202E; control, formatting and text-direction characters are not allowed; try again.',
        `${ORG_NAME}: Acme Robotics`,
        `${ORG_ID}: Acme Co`,
        '  must be 1-63 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit; try again.',
        `${ORG_ID}: acme`,
        `${OWNER}: alice`,
        '  must be an email address; try again.',
        `${OWNER}: alice@acme.test`,
        '',
      ].join('\n'),
    );
    assert.match(session.report, /Created organization acme with initial owner alice@acme\.test/);
    const { config } = loadConfig({ configPath: configFile, env: {} });
    assert.deepEqual(
      { issuer: config.server.issuer, organization: { ...config.organization }, tls: config.tls.mode },
      {
        issuer: 'https://id.acme.test',
        organization: { id: 'acme', name: 'Acme Robotics', owner_subject: 'alice@acme.test' },
        tls: 'external',
      },
    );
    const installation = await readInstallation(sql);
    assert.deepEqual(
      [installation?.organizationId, installation?.organizationName, installation?.ownerSubject],
      ['acme', 'Acme Robotics', 'alice@acme.test'],
    );
  });

  test('with --tls files asks for the certificate and key, refusing a path that names no file', async () => {
    const dir = scratchDir();
    const { url } = await createTestDatabase({ migrated: false });
    const cert = path.join(dir, 'id.pem');
    const key = path.join(dir, 'id.key');
    writeFileSync(cert, '-----BEGIN CERTIFICATE-----\n');
    writeFileSync(key, '-----BEGIN PRIVATE KEY-----\n', { mode: 0o600 });
    const missing = path.join(dir, 'nope.pem');
    const configFile = path.join(dir, 'gatehouse.toml');
    const session = scriptedTerminal([
      ['TLS certificate chain (PEM file)', missing],
      ['TLS certificate chain (PEM file)', cert],
      ['TLS private key (PEM file)', ''],
      ['TLS private key (PEM file)', key],
    ]);
    const flags = ['--domain', 'id.acme.test', '--org-name', 'Acme', '--org-id', 'acme', '--owner', 'alice@acme.test'];

    const code = await runSetup(
      await commandValues(['setup'], ['--config', configFile, '--database-url', url, '--tls', 'files', ...flags]),
      session.terminal,
    );

    assert.equal(code, 0);
    assert.equal(
      session.transcript,
      [
        `TLS certificate chain (PEM file): ${missing}`,
        `  no such file: ${missing}; try again.`,
        `TLS certificate chain (PEM file): ${cert}`,
        'TLS private key (PEM file): ',
        '  is required; try again.',
        `TLS private key (PEM file): ${key}`,
        '',
      ].join('\n'),
    );
    const { config } = loadConfig({ configPath: configFile, env: {} });
    assert.deepEqual(
      { mode: config.tls.mode, cert: config.tls.cert_file, key: config.tls.key_file },
      { mode: 'files', cert, key },
    );
  });

  test('refuses after three wrong answers, naming the question, and writes nothing', async () => {
    const dir = scratchDir();
    const { sql, url } = await createTestDatabase({ migrated: false });
    const session = scriptedTerminal([
      [DOMAIN, 'id.acme.test'],
      [ORG_NAME, 'Acme'],
      [ORG_ID, 'Acme'],
      [ORG_ID, 'ACME'],
      [ORG_ID, '-acme'],
    ]);
    await assert.rejects(
      runSetup(
        await commandValues(['setup'], ['--config', path.join(dir, 'gatehouse.toml'), '--database-url', url]),
        session.terminal,
      ),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message ===
          `${ORG_ID}: must be 1-63 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit (asked 3 times)`,
    );
    assert.deepEqual(readdirSync(dir), []);
    const [{ n } = { n: -1 }] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_tables where schemaname = 'public'`;
    assert.equal(n, 0, 'the database was not touched');
  });

  test('refuses when the input ends before every question is answered', async () => {
    const dir = scratchDir();
    const session = scriptedTerminal([[DOMAIN, 'id.acme.test']], { endAfter: 1 });
    await assert.rejects(
      runSetup(await commandValues(['setup'], ['--config', path.join(dir, 'gatehouse.toml')]), session.terminal),
      (error: unknown) =>
        error instanceof UsageError && error.message === 'the input ended before every question was answered',
    );
    assert.equal(session.unanswered, 0);
    assert.deepEqual(readdirSync(dir), []);
  });
});
