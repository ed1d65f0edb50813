// What direct MX needs published in DNS, checked through an injectable resolver: receivers reject or junk
// mail from hosts without matching reverse DNS, SPF (RFC 7208), DKIM (RFC 6376) and DMARC (RFC 7489).
// Each missing or wrong record comes with the exact record to publish.
import type { Config } from '../config/schema.ts';
import { senderDomain } from '../config/validate.ts';
import { type Check, check } from './check.ts';
import type { MxResolver } from './direct-mx.ts';
import { dkimPublicKey, dkimRecord, parseTags } from './dkim-key.ts';

/** The node:dns/promises Resolver methods doctor uses. */
export interface DnsResolver extends MxResolver {
  resolveTxt(name: string): Promise<string[][]>;
  resolve4(name: string): Promise<string[]>;
  reverse(ip: string): Promise<string[]>;
}

const NOT_FOUND = new Set(['ENODATA', 'ENOTFOUND']);
const bare = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** Answers, or [] when the name has none, or the error code when the lookup itself failed. */
async function lookup<T>(query: () => Promise<T[]>): Promise<T[] | string> {
  try {
    return await query();
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    return NOT_FOUND.has(code) ? [] : code;
  }
}

async function txtRecords(resolver: DnsResolver, name: string, prefix: RegExp): Promise<string[] | string> {
  const answers = await lookup(() => resolver.resolveTxt(name));
  if (typeof answers === 'string') return answers;
  // A TXT record may arrive split into strings of up to 255 octets; they are one value (RFC 7208 §3.3).
  return answers.map((chunks) => chunks.join('')).filter((text) => prefix.test(text));
}

async function ptrCheck(resolver: DnsResolver, helo: string): Promise<Check[]> {
  const addresses = await lookup(() => resolver.resolve4(helo));
  if (typeof addresses === 'string') return [check('warn', 'PTR', `lookup of ${helo} failed (${addresses})`)];
  if (addresses.length === 0)
    return [check('fail', 'PTR', `${helo} has no A record: publish A ${helo} -> this host's public IPv4 address`)];
  const checks: Check[] = [];
  for (const address of addresses) {
    const names = await lookup(() => resolver.reverse(address));
    if (typeof names === 'string') checks.push(check('warn', 'PTR', `reverse lookup of ${address} failed (${names})`));
    else if (names.some((n) => bare(n) === bare(helo)))
      checks.push(check('ok', 'PTR', `${helo} has address ${address}, whose PTR is ${helo}`));
    else
      checks.push(
        check(
          'fail',
          'PTR',
          `${address} has ${names.length ? `PTR ${names.join(', ')}` : 'no PTR record'}: ask the provider of that address to set PTR ${address} -> ${helo}`,
        ),
      );
  }
  return checks;
}

async function spfCheck(resolver: DnsResolver, domain: string, helo: string, addresses: string[]): Promise<Check> {
  const records = await txtRecords(resolver, domain, /^v=spf1(\s|$)/i);
  const wanted = `"v=spf1 a:${helo} -all"`;
  if (typeof records === 'string') return check('warn', 'SPF', `TXT lookup of ${domain} failed (${records})`);
  if (records.length === 0) return check('fail', 'SPF', `${domain} has no SPF record: publish TXT ${domain} ${wanted}`);
  if (records.length > 1)
    return check(
      'fail',
      'SPF',
      `${domain} has ${records.length} SPF records, a permanent error (RFC 7208 §4.5): keep one`,
    );
  const [record = ''] = records;
  const terms = record.toLowerCase().split(/\s+/);
  const names = [`a:${bare(helo)}`, ...addresses.map((a) => `ip4:${a}`)];
  if (terms.some((t) => names.includes(t.replace(/^[+]/, '')))) return check('ok', 'SPF', `${domain}: ${record}`);
  return check(
    'warn',
    'SPF',
    `${domain}: ${record} does not name a:${helo} directly; make sure it authorizes this host`,
  );
}

async function dkimCheck(
  resolver: DnsResolver,
  mx: Config['delivery']['direct_mx'],
  privateKeyPem: string,
): Promise<Check> {
  const name = `${mx.dkim_selector}._domainkey.${mx.dkim_domain}`;
  const wanted = `"${dkimRecord(privateKeyPem)}"`;
  const records = await txtRecords(resolver, name, /(^|;)\s*p=/i);
  if (typeof records === 'string') return check('warn', 'DKIM', `TXT lookup of ${name} failed (${records})`);
  if (records.length === 0) return check('fail', 'DKIM', `${name} has no DKIM record: publish TXT ${name} ${wanted}`);
  const key = dkimPublicKey(privateKeyPem);
  if (records.some((r) => parseTags(r).get('p') === key))
    return check('ok', 'DKIM', `${name} holds the configured key`);
  return check('fail', 'DKIM', `${name} holds a different key: replace it with TXT ${name} ${wanted}`);
}

async function dmarcCheck(resolver: DnsResolver, domain: string): Promise<Check> {
  const name = `_dmarc.${domain}`;
  const records = await txtRecords(resolver, name, /^v=DMARC1(\s|;|$)/i);
  if (typeof records === 'string') return check('warn', 'DMARC', `TXT lookup of ${name} failed (${records})`);
  if (records.length === 0)
    return check(
      'fail',
      'DMARC',
      `${name} has no DMARC record: publish TXT ${name} "v=DMARC1; p=quarantine; adkim=r; aspf=r"`,
    );
  return check('ok', 'DMARC', `${name}: ${records[0]}`);
}

/** RFC 7489 §3.1.1 relaxed alignment, approximated without the public suffix list: same domain or a subdomain. */
function alignmentCheck(fromDomain: string, dkimDomain: string): Check | null {
  const from = bare(fromDomain);
  const signer = bare(dkimDomain);
  if (from === signer || from.endsWith(`.${signer}`) || signer.endsWith(`.${from}`)) return null;
  return check(
    'fail',
    'alignment',
    `DKIM domain ${signer} does not align with the From domain ${from} (RFC 7489 §3.1.1): DMARC will fail; use dkim_domain = "${from}"`,
  );
}

export async function directMxDnsReport(
  config: Config,
  resolver: DnsResolver,
  privateKeyPem: string,
): Promise<Check[]> {
  const mx = config.delivery.direct_mx;
  const fromDomain = senderDomain(config.delivery.from);
  const addresses = await lookup(() => resolver.resolve4(mx.helo_name));
  const checks = [
    ...(await ptrCheck(resolver, mx.helo_name)),
    await spfCheck(resolver, fromDomain, mx.helo_name, typeof addresses === 'string' ? [] : addresses),
    await dkimCheck(resolver, mx, privateKeyPem),
    await dmarcCheck(resolver, fromDomain),
  ];
  const alignment = alignmentCheck(fromDomain, mx.dkim_domain);
  return alignment ? [...checks, alignment] : checks;
}
