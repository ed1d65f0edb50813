// Introspection of a JWT access token by a confidential client at concurrency 32, against the trivial route of the
// same server measured in the same run.
import { request } from 'undici';
import { FORM, form, startOAuthBench } from '../helpers/oauth.ts';
import { versusTrivialRoute } from '../helpers/versus-trivial.ts';
import type { BenchContext, Scenario } from '../lib.ts';

export const scenario: Scenario = {
  name: 'oauth-introspection',
  description:
    'POST /oauth/introspect (JWT access token, by its own confidential client, client_secret_post; active: true), concurrency 32, keep-alive; reference: GET /health/live on the same server.',
  async run(context: BenchContext) {
    const bench = await startOAuthBench();
    try {
      const { access_token } = await bench.userGrant();
      const body = form({
        // The client the token was issued to: introspection shows a token only to it (or to a service client
        // provisioned for the token's audience).
        client_id: bench.web.clientId,
        client_secret: bench.web.secret,
        token: access_token,
      });
      // The measured answer must be the full active one, not the cheap {active:false}.
      const answer = await request(`${bench.server.url}/oauth/introspect`, { method: 'POST', headers: FORM, body });
      const introspected = (await answer.body.json()) as { active?: boolean };
      if (introspected.active !== true) throw new Error('the benchmarked token does not introspect as active');
      return await versusTrivialRoute(bench.server, context, {
        label: 'POST /oauth/introspect',
        ratio: 'introspection / trivial route',
        load: { method: 'POST', path: '/oauth/introspect', headers: FORM, body, expectStatus: 200 },
      });
    } finally {
      await bench.server.stop();
    }
  },
};
