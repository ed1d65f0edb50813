// Debian's `pebble` (a small ACME server for tests, installed by .ci/run) started per test file with its own
// config: a self-signed certificate for its HTTPS listener, free ports, and HTTP-01 validation sent to the port the
// test's challenge listener uses. Validation is real (no PEBBLE_VA_ALWAYS_VALID): pebble fetches the challenge from
// our listener over loopback. PEBBLE_VA_NOSLEEP skips its random validation delays.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { freePort } from '../delivery/smtp-server.ts';
import { httpsGet, makeSelfSigned } from './tls.ts';

export interface Pebble {
  directoryUrl: string;
  /** PEM file of the certificate pebble's HTTPS listener uses (what tls.acme_ca_file points at). */
  caFile: string;
  /** The issuing root of this run, from pebble's management endpoint (regenerated on every start). */
  root(): Promise<string>;
  stop(): Promise<void>;
}

export interface PebbleOptions {
  /** host:port of the DNS server pebble resolves names with (pebble-challtestsrv); the system's by default. */
  dnsServer?: string;
  /** How long its certificates last, in seconds (pebble's default is years). */
  certificateValiditySeconds?: number;
}

export async function startPebble(dir: string, httpPort: number, options: PebbleOptions = {}): Promise<Pebble> {
  const listener = await makeSelfSigned(dir, 'pebble-listener', 30);
  const acmePort = await freePort();
  const managementPort = await freePort();
  const configFile = path.join(dir, 'pebble-config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: listener.certFile,
        privateKey: listener.keyFile,
        httpPort,
        tlsPort: await freePort(),
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        ...(options.certificateValiditySeconds
          ? { certificateValidityPeriod: options.certificateValiditySeconds }
          : {}),
      },
    }),
  );
  const dns = options.dnsServer ? ['-dnsserver', options.dnsServer] : [];
  const child: ChildProcess = spawn('pebble', ['-config', configFile, '-strict', ...dns], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ACME directory available')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`pebble exited (${code}) before it was ready:\n${output}`)));
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  after(stop);
  await ready;
  return {
    directoryUrl: `https://localhost:${acmePort}/dir`,
    caFile: listener.certFile,
    root: async () => (await httpsGet(managementPort, '/roots/0', listener.cert)).body,
    stop,
  };
}
