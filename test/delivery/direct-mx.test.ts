import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { createDirectMxTransport, type MxResolver, mxHosts } from '../../src/delivery/direct-mx.ts';
import { dkimRecord } from '../../src/delivery/dkim-key.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { TestClock, testSecrets } from '../helpers/app.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { captureLogger, makeOwner, outboxRow, signupLike } from './fixtures.ts';
import { makeCertificate, TestSmtpServer } from './smtp-server.ts';

const dir = scratchDir();
const { sql } = await createTestDatabase();
const identityId = await makeOwner(sql);
const secrets = testSecrets();
const keyFile = path.join(dir, 'dkim.pem');
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });

const dnsError = (code: string) => Object.assign(new Error(code), { code });

/** No DNS server answers for these names here, so the MX lookup is a fake pointing at the local server. */
const resolver: MxResolver = {
  async resolveMx(domain) {
    if (domain === 'recipient.dev') return [{ exchange: 'localhost.', priority: 10 }];
    throw dnsError('ENOTFOUND');
  },
};

describe('direct MX delivery with DKIM', () => {
  test('delivers to the MX host over STARTTLS with a DKIM signature that verifies against the published key', async () => {
    const mxHost = await new TestSmtpServer({ certificate: await makeCertificate(dir), credentials: null }).start();
    after(() => mxHost.stop());
    const config = makeConfig({
      organization: { name: 'Acme Robotics' },
      delivery: {
        kind: 'direct_mx',
        from: 'Acme Robotics <no-reply@acme.dev>',
        direct_mx: {
          helo_name: 'mx1.acme.dev',
          dkim_domain: 'acme.dev',
          dkim_selector: 'gh2026',
          dkim_private_key_file: keyFile,
        },
      },
    });
    const clock = new TestClock();
    const { log, logs } = captureLogger();
    const worker = createDeliveryWorker({
      sql,
      transport: createDirectMxTransport(config.delivery, { resolver, port: mxHost.port }),
      deliveryKey: secrets.delivery,
      from: config.delivery.from,
      clock: clock.now,
      log,
    });
    const issued = await signupLike(
      sql,
      { config, deliveryKey: secrets.delivery, clock, identityId },
      'zoe@recipient.dev',
    );
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    const [message] = mxHost.received;
    assert.ok(message);
    assert.equal(message.secure, true, 'STARTTLS was used because the MX host offered it');
    assert.deepEqual(message.to, ['zoe@recipient.dev']);

    const published = dkimRecord(readKey());
    const result = await dkimVerify(message.raw, {
      resolver: async (name: string, type: string) => {
        assert.equal(type, 'TXT');
        if (name === 'gh2026._domainkey.acme.dev') return [[published]];
        throw dnsError('ENOTFOUND');
      },
    });
    const [signature] = result.results;
    assert.equal(signature?.status.result, 'pass');
    assert.equal(signature?.signingDomain, 'acme.dev');
    assert.equal(signature?.selector, 'gh2026');
    // The same message checked against some other key fails: the pass above is about this key.
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    const forged = await dkimVerify(message.raw, { resolver: async () => [[dkimRecord(other.toString())]] });
    assert.equal(forged.results[0]?.status.result, 'fail');
    assert.equal((await outboxRow(sql, issued.messageId)).state, 'sent');
    assert.ok(!logs.text.includes(issued.secret));
  });

  test('an unknown recipient domain is dead at once; a domain with null MX too', async () => {
    await assert.rejects(mxHosts(resolver, 'nowhere.dev'), {
      name: 'DeliveryFailure',
      permanent: true,
      message: 'domain nowhere.dev does not exist',
    });
    const nullMx: MxResolver = { resolveMx: async () => [{ exchange: '', priority: 0 }] };
    await assert.rejects(mxHosts(nullMx, 'nomail.dev'), {
      permanent: true,
      message: 'domain nomail.dev accepts no mail (null MX)',
    });
  });

  test('MX hosts are tried by preference; a domain without MX is its own MX; a failing lookup is retried', async () => {
    const many: MxResolver = {
      resolveMx: async () => [
        { exchange: 'b.mx.dev.', priority: 20 },
        { exchange: 'a.mx.dev.', priority: 10 },
      ],
    };
    assert.deepEqual(await mxHosts(many, 'x.dev'), ['a.mx.dev', 'b.mx.dev']);
    const noMx: MxResolver = { resolveMx: async () => Promise.reject(dnsError('ENODATA')) };
    assert.deepEqual(await mxHosts(noMx, 'x.dev'), ['x.dev']);
    const timeout: MxResolver = { resolveMx: async () => Promise.reject(dnsError('ETIMEOUT')) };
    await assert.rejects(mxHosts(timeout, 'x.dev'), {
      permanent: false,
      message: 'MX lookup for x.dev failed: ETIMEOUT',
    });
  });
});

function readKey(): string {
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
