import { request } from 'undici';
import { FORM, form, startOAuthBench } from './helpers/oauth.ts';
import { freshCompileCache } from './helpers/server.ts';

const cache = freshCompileCache();
for (const label of ['cold', 'warm', 'warm']) {
  const b = await startOAuthBench({ compileCacheDir: cache.dir });
  const r = await request(`${b.server.url}/oauth/token`, {
    method: 'POST',
    headers: FORM,
    body: form({
      grant_type: 'client_credentials',
      client_id: b.service.clientId,
      client_secret: b.service.secret,
      scope: 'read',
      resource: b.service.audience,
    }),
  });
  await r.body.dump();
  await new Promise((res) => setTimeout(res, 1000));
  const a = b.server.rssMegabytes();
  await new Promise((res) => setTimeout(res, 4000));
  console.log(label, r.statusCode, 'idle rss 1s', a.toFixed(1), '5s', b.server.rssMegabytes().toFixed(1));
  await b.server.stop();
}
cache.remove();
