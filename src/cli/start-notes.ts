// The lines `gatehouse serve` prints on stderr once the node listens. Apart from serve.ts so that the handed-over
// supervisor (src/supervisor-main.ts) prints them without loading the command line and the configuration checks.
import { issuerListenerMismatch } from '../config/issuer-listener.ts';

/** Where the node listens, its issuer and console, a loopback issuer that cannot reach it, then `more`. */
export function startNotes(url: string, issuer: string, more: readonly string[]): string {
  const notes = [`Gatehouse is listening on ${url}`, `  issuer:  ${issuer}`, `  console: ${issuer}/admin/console`];
  const mismatch = issuerListenerMismatch(issuer, new URL(url).host);
  if (mismatch) notes.push(`  WARNING: ${mismatch}`);
  return `${[...notes, ...more].join('\n')}\n`;
}
