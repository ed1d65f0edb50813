// pebble (test/helpers/pebble.ts) for the booted system's service: on the host's loopback, which the booted system
// shares, validating HTTP-01 at the issuer's name. That name (id.gatehouse.test) is in no DNS, so pebble asks
// pebble-challtestsrv (Debian's pebble package), whose DNS answers every A query with 127.0.0.1: pebble then
// fetches the challenge from the service's challenge listener on `httpPort`.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { after } from 'node:test';
import { freePort } from '../helpers/haproxy.ts';
import { type Pebble, startPebble } from '../helpers/pebble.ts';

export async function startPebbleWithDns(dir: string, httpPort: number, validitySeconds: number): Promise<Pebble> {
  mkdirSync(dir, { recursive: true });
  const dnsPort = await freePort();
  const managementPort = await freePort();
  // Only its DNS server: every challenge server of its own is switched off ("" disables one).
  const dns: ChildProcess = spawn(
    'pebble-challtestsrv',
    [
      ...['-dns01', `127.0.0.1:${dnsPort}`, '-management', `127.0.0.1:${managementPort}`],
      ...['-http01', '', '-https01', '', '-tlsalpn01', ''],
      ...['-defaultIPv4', '127.0.0.1', '-defaultIPv6', ''],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stopped = false;
  const stopDns = async () => {
    if (stopped) return;
    stopped = true;
    const exited = once(dns, 'exit');
    dns.kill('SIGTERM');
    await exited;
  };
  after(stopDns);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Starting challenge servers')) resolve();
    };
    dns.stdout?.on('data', onData);
    dns.stderr?.on('data', onData);
    dns.once('exit', (code) => reject(new Error(`pebble-challtestsrv exited (${code}):\n${output}`)));
  });
  const pebble = await startPebble(dir, httpPort, {
    dnsServer: `127.0.0.1:${dnsPort}`,
    certificateValiditySeconds: validitySeconds,
  });
  return {
    ...pebble,
    stop: async () => {
      await pebble.stop();
      await stopDns();
    },
  };
}
