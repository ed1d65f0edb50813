// tls.mode = "files" end to end: the real startServer serves HTTPS with the operator's certificate, reloads it on
// SIGHUP and when the files change, keeps the old one when the new files are bad, and refuses to start on bad files.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { generateSecretFiles } from '../../src/crypto/secret-files.ts';
import { startServer } from '../../src/server.ts';
import { MAIN } from '../helpers/cli.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import {
  fingerprint,
  httpsGet,
  makeSelfSigned,
  type SelfSigned,
  servedCertificate,
  WaitableLogs,
} from '../helpers/tls.ts';

const dir = scratchDir();
const secretsDir = path.join(dir, 'secrets');
generateSecretFiles(secretsDir);
const database = await createTestDatabase();
const first = await makeSelfSigned(dir, 'first');
const second = await makeSelfSigned(dir, 'second');
const third = await makeSelfSigned(dir, 'third');

/** Copies a certificate pair to the served paths, the key first (as an operator would), each replaced by rename. */
function install(pair: SelfSigned, served: { certFile: string; keyFile: string }) {
  for (const [from, to] of [
    [pair.keyFile, served.keyFile],
    [pair.certFile, served.certFile],
  ] as const) {
    copyFileSync(from, `${to}.new`);
    renameSync(`${to}.new`, to);
  }
}

async function startFilesServer(name: string, pair: SelfSigned) {
  const served = { certFile: path.join(dir, `${name}-served.pem`), keyFile: path.join(dir, `${name}-served.key`) };
  install(pair, served);
  const logs = new WaitableLogs();
  const config = makeConfig({
    server: { issuer: 'https://localhost' },
    database: { url: database.url },
    secrets: { dir: secretsDir },
    data: { dir },
    tls: { mode: 'files', cert_file: served.certFile, key_file: served.keyFile },
  });
  const server = await startServer(
    { config, file: null, development: false, deferred: [] },
    { logStream: logs, tls: { filesPollMs: 50 } },
  );
  after(() => server.stop());
  return { server, served, logs, port: Number(new URL(server.url).port) };
}

describe('tls.mode = "files"', () => {
  test('serves HTTPS with the configured certificate, verified by a TLS client that trusts it', async () => {
    const { server, port } = await startFilesServer('serve', first);
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await servedCertificate(port, first.cert)).fingerprint256, fingerprint(first));
    const response = await httpsGet(port, '/health/live', first.cert);
    assert.deepEqual(response, { status: 200, body: '{"status":"ok"}' });
  });

  test('reloads a new certificate and key on SIGHUP, and new handshakes get it', async () => {
    const { server, served, port } = await startFilesServer('sighup', first);
    install(second, served);
    assert.equal(await server.tls.reload('SIGHUP'), true);
    assert.equal((await servedCertificate(port, second.cert)).fingerprint256, fingerprint(second));
  });

  test('reloads when the files change on disk, without a signal', async () => {
    const { served, logs, port } = await startFilesServer('watch', first);
    const reloaded = logs.next(/TLS certificate reloaded/);
    install(third, served);
    assert.match(await reloaded, /changed/);
    assert.equal((await servedCertificate(port, third.cert)).fingerprint256, fingerprint(third));
  });

  test('keeps serving the old certificate and logs why when the new certificate file is not PEM', async () => {
    const { server, served, logs, port } = await startFilesServer('bad', first);
    writeFileSync(served.certFile, 'not a certificate\n');
    const refusedLine = logs.next(/TLS reload refused/);
    assert.equal(await server.tls.reload('SIGHUP'), false);
    const line = JSON.parse(await refusedLine) as { error: { message: string }; reason: string };
    assert.equal(line.reason, 'SIGHUP');
    assert.equal(line.error.message, `the TLS certificate file ${served.certFile} does not hold a PEM certificate`);
    assert.equal((await servedCertificate(port, first.cert)).fingerprint256, fingerprint(first));
  });

  test('keeps the old certificate when the new key is not the certificate key', async () => {
    const { server, served, port } = await startFilesServer('mismatch', first);
    copyFileSync(second.certFile, served.certFile);
    const refused = server.tls.reload('SIGHUP');
    assert.equal(await refused, false);
    assert.equal((await servedCertificate(port, first.cert)).fingerprint256, fingerprint(first));
  });

  test('refuses to start when the key file cannot be read, naming the file', async () => {
    const missing = path.join(dir, 'missing.key');
    const config = makeConfig({
      server: { issuer: 'https://localhost' },
      database: { url: database.url },
      secrets: { dir: secretsDir },
      data: { dir },
      tls: { mode: 'files', cert_file: first.certFile, key_file: missing },
    });
    await assert.rejects(
      startServer({ config, file: null, development: false, deferred: [] }, { logStream: new WaitableLogs() }),
      { name: 'TlsFileError', message: `cannot read the TLS key file ${missing} (ENOENT)` },
    );
  });

  test('refuses to start when the key does not belong to the certificate, naming both files', async () => {
    const config = makeConfig({
      server: { issuer: 'https://localhost' },
      database: { url: database.url },
      secrets: { dir: secretsDir },
      data: { dir },
      tls: { mode: 'files', cert_file: first.certFile, key_file: second.keyFile },
    });
    await assert.rejects(
      startServer({ config, file: null, development: false, deferred: [] }, { logStream: new WaitableLogs() }),
      {
        name: 'TlsFileError',
        message: `the TLS key file ${second.keyFile} is not the key of the certificate in ${first.certFile}`,
      },
    );
  });

  test('gatehouse serve reloads on a real SIGHUP and keeps running, then stops on SIGTERM with exit 0', async () => {
    const served = { certFile: path.join(dir, 'process-served.pem'), keyFile: path.join(dir, 'process-served.key') };
    install(first, served);
    const configFile = path.join(dir, 'process.toml');
    writeFileSync(
      configFile,
      [
        '[server]',
        'issuer = "https://localhost"',
        'listen = "127.0.0.1:0"',
        // One process: with several workers each reloads on its own, and the check below may reach one that has
        // not yet (test/server-workers.test.ts covers workers).
        'workers = 1',
        '[data]',
        `dir = "${dir}"`,
        '[secrets]',
        `dir = "${secretsDir}"`,
        '[organization]',
        'id = "acme"',
        'name = "Acme"',
        'owner_subject = "owner@acme.test"',
        '[tls]',
        'mode = "files"',
        `cert_file = "${served.certFile}"`,
        `key_file = "${served.keyFile}"`,
      ].join('\n'),
    );
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url };
    delete env.GATEHOUSE_CONFIG;
    const child = spawn(process.execPath, [MAIN, 'serve', '--config', configFile], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    after(() => child.kill('SIGKILL'));
    const exited = once(child, 'close');
    const output = { stdout: '', stderr: '' };
    const until = (stream: 'stdout' | 'stderr', pattern: RegExp) =>
      new Promise<string>((resolve) => {
        const check = () => {
          const match = pattern.exec(output[stream]);
          if (match) {
            child[stream].off('data', check);
            resolve(match[0]);
          }
        };
        child[stream].on('data', check);
      });
    child.stdout.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output.stderr += chunk.toString();
    });
    const listening = await until('stderr', /listening on https:\/\/127\.0\.0\.1:(\d+)/);
    const port = Number(/:(\d+)$/.exec(listening)?.[1]);
    assert.equal((await servedCertificate(port, first.cert)).fingerprint256, fingerprint(first));

    install(second, served);
    const reloaded = until('stdout', /"reason":"SIGHUP"[^\n]*"msg":"TLS certificate reloaded"/);
    child.kill('SIGHUP');
    const died = exited.then(([code, signal]) => {
      throw new Error(`gatehouse stopped on SIGHUP (${code ?? signal})`);
    });
    await Promise.race([reloaded, died]);
    assert.equal((await servedCertificate(port, second.cert)).fingerprint256, fingerprint(second));

    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
  });
});
