// What a `gatehouse config <section>` command touches outside the file: output, stdin (for secrets), DNS and time.
import { promises as dns } from 'node:dns';
import type { DnsResolver } from '../delivery/dns-report.ts';

export interface ConfigIo {
  write(text: string): void;
  readStdin(): Promise<string>;
  resolver: DnsResolver;
  now(): Date;
}

/** The process's own: stdout, stdin, the system's DNS servers and clock. */
export const processIo = (): ConfigIo => ({
  write: (text) => process.stdout.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  resolver: new dns.Resolver(),
  now: () => new Date(),
});
