// What a `gatehouse config <section>` command touches outside the file: output, stdin (for secrets), DNS and time.
import type { DnsResolver } from '../delivery/dns-report.ts';

export interface ConfigIo {
  write(text: string): void;
  readStdin(): Promise<string>;
  resolver: DnsResolver;
  now(): Date;
}
