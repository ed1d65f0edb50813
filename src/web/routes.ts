// Serves the built web UI: hashed assets (immutable, cacheable), the branding (logo, accent stylesheet) and the
// page paths (index.html with the branding in its head, never cached, under a strict CSP). Without a build the
// pages answer 503 with a message saying how to build it.
import type { FastifyInstance } from 'fastify';
import { GatehouseError, NotFound } from '../http/errors.ts';
import { readAssets } from './assets.ts';
import { ACCENT_PATH, accentCss, type Branding, LOGO_PATH } from './branding.ts';
import { PAGE_CSP, PAGE_PATHS } from './pages.ts';

export interface WebRouteOptions {
  dist: string;
  /** index.html with the branding applied, or null when the UI is not built. */
  page: string | null;
  branding: Branding;
}

export async function webRoutes(app: FastifyInstance, options: WebRouteOptions): Promise<void> {
  const { dist, page, branding } = options;
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

  const css = accentCss(branding);
  app.get(ACCENT_PATH, async (_request, reply) =>
    // Short-lived: an operator who changes the colour sees it after a restart and a few minutes at most.
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(css),
  );
  app.get(LOGO_PATH, async (_request, reply) => {
    const { logo } = branding;
    if (!logo) throw new NotFound('No logo is configured');
    return reply
      .type(logo.contentType)
      .header('cache-control', 'public, max-age=300')
      .header('cross-origin-resource-policy', 'same-origin')
      .header('content-security-policy', "default-src 'none'")
      .send(logo.body);
  });

  for (const path of PAGE_PATHS) {
    app.get(path, async (_request, reply) => {
      if (page === null) throw new GatehouseError('not_ready', 'The web UI is not built: run `npm run build:web`');
      return reply.header('content-security-policy', PAGE_CSP).type('text/html; charset=utf-8').send(page);
    });
  }
}
