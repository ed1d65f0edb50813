import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createTestDatabase } from '../../test/helpers/database.ts';
import type { Client } from '../clients/store.ts';
import { AssertionRefused, verifyClientAssertion } from './client-assertion.ts';
import { createJtiReplayGuard } from './jti-replay-guard.ts';
import { purgeUsedJtis } from './used-jti-store.ts';

const ISSUER = 'https://id.example.test';

describe('client assertions: single use for as long as one is accepted', async () => {
  const { sql } = await createTestDatabase();
  const keys = await generateKeyPair('ES256');
  const jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(keys.publicKey)), alg: 'ES256' }] });
  const client = { id: 'cl_assertion_test' } as Client;

  it('a replay to another process just before exp plus the tolerance is refused, after the minute purge ran', async () => {
    const issuedAt = Math.floor(Date.now() / 1000);
    const exp = issuedAt + 60;
    const assertion = await new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(client.id)
      .setSubject(client.id)
      .setAudience(ISSUER)
      .setIssuedAt(issuedAt)
      .setExpirationTime(exp)
      .sign(keys.privateKey);
    const processOn = (clock: () => Date) => ({
      usedJtis: createJtiReplayGuard(sql, clock),
      clientKeys: { keySet: () => jwks },
      clock,
      issuer: ISSUER,
    });
    const first = processOn(() => new Date(issuedAt * 1000));
    await verifyClientAssertion(first as never, client, assertion);
    // Four seconds past exp: jwtVerify's tolerance still accepts the assertion, and every process's purge has run.
    const late = new Date((exp + 4) * 1000);
    await purgeUsedJtis(sql, late);
    const other = processOn(() => late);
    await assert.rejects(verifyClientAssertion(other as never, client, assertion), (error: unknown) => {
      assert.ok(error instanceof AssertionRefused);
      assert.match(error.message, /already used/);
      return true;
    });
  });
});
