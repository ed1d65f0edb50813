// The delivery worker as it runs for back-channel logout alone (no mail transport): it signs each queued logout token
// with the app's keyring and POSTs it to the client's backchannel_logout_uri. Tests call runOnce() to deliver.
import pino from 'pino';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { logoutTokenSigner } from '../../src/oauth/backchannel-logout.ts';
import { createTokenSigner } from '../../src/oauth/tokens.ts';
import type { TestApp } from './app.ts';

export function backchannelWorker(t: TestApp & { issuer: string }) {
  return createDeliveryWorker({
    sql: t.sql,
    transport: null,
    backchannel: logoutTokenSigner(
      createTokenSigner({
        keyring: t.services.keyring,
        issuer: t.issuer,
        clock: t.clock.now,
        accessTokenTtlSeconds: 600,
        idTokenTtlSeconds: 600,
      }),
    ),
    deliveryKey: t.secrets.delivery,
    from: 'unused@example.test',
    clock: t.clock.now,
    log: pino({ level: 'silent' }),
    random: () => 0,
  });
}
