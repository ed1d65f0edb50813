// Userinfo with a user access token at concurrency 32, against the trivial route of the same server.
import { startOAuthBench } from '../helpers/oauth.ts';
import { versusTrivialRoute } from '../helpers/versus-trivial.ts';
import type { BenchContext, Scenario } from '../lib.ts';

export const scenario: Scenario = {
  name: 'oauth-userinfo',
  description:
    'GET /oauth/userinfo (Bearer JWT), concurrency 32, keep-alive; reference: GET /health/live on the same server.',
  async run(context: BenchContext) {
    const bench = await startOAuthBench();
    try {
      const { access_token } = await bench.userGrant();
      return await versusTrivialRoute(bench.server, context, {
        label: 'GET /oauth/userinfo',
        ratio: 'userinfo / trivial route',
        load: {
          method: 'GET',
          path: '/oauth/userinfo',
          headers: { authorization: `Bearer ${access_token}` },
          expectStatus: 200,
        },
      });
    } finally {
      await bench.server.stop();
    }
  },
};
