// Serves the built web UI: hashed assets (immutable, cacheable) and the page paths (index.html, never cached, under
// a strict CSP). Without a build the pages answer 503 with a message saying how to build it.
import type { FastifyInstance } from 'fastify';
import { GatehouseError, NotFound } from '../http/errors.ts';
import { readAssets } from './assets.ts';
import { PAGE_CSP, PAGE_PATHS } from './pages.ts';
import type { UiBuild } from './ui-build.ts';

export async function webRoutes(app: FastifyInstance, options: { ui: UiBuild }): Promise<void> {
  const { dist, index } = options.ui;
  const assets = readAssets(`${dist}assets`);

  app.get<{ Params: { name: string } }>('/assets/:name', async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) throw new NotFound('No such asset');
    return (
      reply
        .type(asset.contentType)
        // File names carry a content hash, so a cached copy can never be stale.
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('cross-origin-resource-policy', 'same-origin')
        .send(asset.body)
    );
  });

  for (const path of PAGE_PATHS) {
    app.get(path, async (_request, reply) => {
      if (index === null) throw new GatehouseError('not_ready', 'The web UI is not built: run `npm run build:web`');
      return reply.header('content-security-policy', PAGE_CSP).type('text/html; charset=utf-8').send(index);
    });
  }
}
