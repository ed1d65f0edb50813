import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { makeConfig } from '../../test/helpers/config.ts';
import { formatCheck } from './check.ts';
import { dkimRecord } from './dkim-key.ts';
import { type DnsResolver, directMxDnsReport } from './dns-report.ts';

const pem = (bits = 2048) =>
  generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const key = pem();
const record = dkimRecord(key);

interface Zone {
  a?: Record<string, string[]>;
  ptr?: Record<string, string[]>;
  txt?: Record<string, string[][]>;
}

/** There is no DNS server for these names here: the zone is a fake behind the resolver interface. */
function fakeResolver(zone: Zone): DnsResolver {
  const answer = <T>(table: Record<string, T[]> | undefined, name: string): Promise<T[]> => {
    const found = table?.[name];
    return found ? Promise.resolve(found) : Promise.reject(Object.assign(new Error('no data'), { code: 'ENODATA' }));
  };
  return {
    resolveMx: () => Promise.resolve([]),
    resolve4: (name) => answer(zone.a, name),
    reverse: (ip) => answer(zone.ptr, ip),
    resolveTxt: (name) => answer(zone.txt, name),
  };
}

const config = makeConfig({
  delivery: {
    kind: 'direct_mx',
    from: 'Acme <no-reply@acme.dev>',
    direct_mx: {
      helo_name: 'mx1.acme.dev',
      dkim_domain: 'acme.dev',
      dkim_selector: 'gh2026',
      dkim_private_key_file: '/unused',
    },
  },
});

const report = async (zone: Zone, cfg = config) =>
  (await directMxDnsReport(cfg, fakeResolver(zone), key)).map(formatCheck);

describe('direct MX DNS report', () => {
  test('a fully published domain reports every record ok', async () => {
    const zone: Zone = {
      a: { 'mx1.acme.dev': ['198.51.100.7'] },
      ptr: { '198.51.100.7': ['mx1.acme.dev'] },
      txt: {
        'acme.dev': [['google-site-verification=abc'], ['v=spf1 ip4:198.51.100.7 -all']],
        // Long DKIM records arrive split into 255-octet strings.
        'gh2026._domainkey.acme.dev': [[record.slice(0, 200), record.slice(200)]],
        '_dmarc.acme.dev': [['v=DMARC1; p=reject']],
      },
    };
    assert.deepEqual(await report(zone), [
      'ok    PTR        mx1.acme.dev has address 198.51.100.7, whose PTR is mx1.acme.dev',
      'ok    SPF        acme.dev: v=spf1 ip4:198.51.100.7 -all',
      'ok    DKIM       gh2026._domainkey.acme.dev holds the configured key',
      'ok    DMARC      _dmarc.acme.dev: v=DMARC1; p=reject',
    ]);
  });

  test('a domain missing SPF, DKIM and DMARC says exactly what to publish', async () => {
    const zone: Zone = { a: { 'mx1.acme.dev': ['198.51.100.7'] }, ptr: { '198.51.100.7': ['mx1.acme.dev.'] } };
    assert.deepEqual(await report(zone), [
      'ok    PTR        mx1.acme.dev has address 198.51.100.7, whose PTR is mx1.acme.dev',
      'fail  SPF        acme.dev has no SPF record: publish TXT acme.dev "v=spf1 a:mx1.acme.dev -all"',
      `fail  DKIM       gh2026._domainkey.acme.dev has no DKIM record: publish TXT gh2026._domainkey.acme.dev "${record}"`,
      'fail  DMARC      _dmarc.acme.dev has no DMARC record: publish TXT _dmarc.acme.dev "v=DMARC1; p=quarantine; adkim=r; aspf=r"',
    ]);
    assert.match(record, /^v=DKIM1; k=rsa; p=MII[A-Za-z0-9+/=]+$/);
  });

  test('a wrong PTR, a stale DKIM key, two SPF records and a misaligned signer each fail', async () => {
    const misaligned = makeConfig({
      delivery: { ...config.delivery, direct_mx: { ...config.delivery.direct_mx, dkim_domain: 'mailer.dev' } },
    });
    const zone: Zone = {
      a: { 'mx1.acme.dev': ['198.51.100.7'] },
      ptr: { '198.51.100.7': ['vps-7.hoster.net'] },
      txt: {
        'acme.dev': [['v=spf1 a -all'], ['v=spf1 mx -all']],
        'gh2026._domainkey.mailer.dev': [[dkimRecord(pem())]],
        '_dmarc.acme.dev': [['v=DMARC1; p=none']],
      },
    };
    assert.deepEqual(await report(zone, misaligned), [
      'fail  PTR        198.51.100.7 has PTR vps-7.hoster.net: ask the provider of that address to set PTR 198.51.100.7 -> mx1.acme.dev',
      'fail  SPF        acme.dev has 2 SPF records, a permanent error (RFC 7208 §4.5): keep one',
      `fail  DKIM       gh2026._domainkey.mailer.dev holds a different key: replace it with TXT gh2026._domainkey.mailer.dev "${record}"`,
      'ok    DMARC      _dmarc.acme.dev: v=DMARC1; p=none',
      'fail  alignment  DKIM domain mailer.dev does not align with the From domain acme.dev (RFC 7489 §3.1.1): DMARC will fail; use dkim_domain = "acme.dev"',
    ]);
  });

  test('a HELO name without an address and an SPF record that does not name the host', async () => {
    const zone: Zone = { txt: { 'acme.dev': [['v=spf1 include:_spf.mailhost.net -all']] } };
    const lines = await report(zone);
    assert.deepEqual(lines.slice(0, 2), [
      "fail  PTR        mx1.acme.dev has no A record: publish A mx1.acme.dev -> this host's public IPv4 address",
      'warn  SPF        acme.dev: v=spf1 include:_spf.mailhost.net -all does not name a:mx1.acme.dev directly; make sure it authorizes this host',
    ]);
  });
});
