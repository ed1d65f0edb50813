// Serves the built web UI: hashed assets (immutable, cacheable), the branding (logo, accent stylesheet) and the
// page paths (index.html with the branding in its head, never cached, under a strict CSP). Without a build the
// pages answer 503 with a message saying how to build it.
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../http/error-responses.ts';
import { GatehouseError, NotFound } from '../http/errors.ts';
import { htmlPage, mediaAnswer } from '../http/route-schema.ts';
import type { LocaleOf } from '../i18n/translate.ts';
import { ASSET_MEDIA_TYPES, readAssets } from './assets.ts';
import { ACCENT_PATH, accentCss, type Branding, LOGO_MEDIA_TYPES, LOGO_PATH } from './branding.ts';
import { isConsolePath, type PageFor } from './localized-index.ts';
import { PAGE_CSP, PAGE_PATHS } from './pages.ts';

export interface WebRouteOptions {
  dist: string;
  /** index.html with the branding applied, in a language, or null when the UI is not built. */
  pageFor: PageFor;
  /** The language a page request is answered in. */
  localeOf: LocaleOf;
  branding: Branding;
}

export async function webRoutes(app: FastifyInstance, options: WebRouteOptions): Promise<void> {
  const { dist, pageFor, localeOf, branding } = options;
  const assets = readAssets(`${dist}assets`);
  const asset = {
    summary: "A file of the web UI's build (content-hashed name)",
    tags: ['web'],
    response: {
      200: mediaAnswer('The file.', ...ASSET_MEDIA_TYPES),
      ...errorResponses('not_found'),
    },
  };
  app.get<{ Params: { name: string } }>('/assets/:name', { schema: asset }, async (request, reply) => {
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
  const accent = {
    summary: "The branding's accent colour",
    tags: ['web'],
    response: { 200: mediaAnswer('A stylesheet.', 'text/css') },
  };
  app.get(ACCENT_PATH, { schema: accent }, async (_request, reply) =>
    // Short-lived: an operator who changes the colour sees it after a restart and a few minutes at most.
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(css),
  );
  const logo = {
    summary: "The branding's logo",
    tags: ['web'],
    response: {
      200: mediaAnswer('The logo image.', ...LOGO_MEDIA_TYPES),
      ...errorResponses('not_found'),
    },
  };
  app.get(LOGO_PATH, { schema: logo }, async (_request, reply) => {
    const { logo } = branding;
    if (!logo) throw new NotFound('No logo is configured');
    return reply
      .type(logo.contentType)
      .header('cache-control', 'public, max-age=300')
      .header('cross-origin-resource-policy', 'same-origin')
      .header('content-security-policy', "default-src 'none'")
      .send(logo.body);
  });

  const pageSchema = {
    summary: 'A page of the web UI (sign-in, sign-up, account, console)',
    tags: ['web'],
    response: { 200: htmlPage('The page.'), ...errorResponses('not_ready') },
  };
  for (const path of PAGE_PATHS) {
    app.get(path, { schema: pageSchema }, async (request, reply) => {
      const locale = isConsolePath(request.url.split('?')[0] ?? '') ? 'en' : await localeOf(request);
      const page = pageFor(locale);
      if (page === null) throw new GatehouseError('not_ready', 'The web UI is not built: run `npm run build:web`');
      return (
        reply
          .header('content-security-policy', PAGE_CSP)
          .header('content-language', locale)
          // The language depends on these: a shared cache must not hand one person's page to another.
          .header('vary', 'Accept-Language, Cookie')
          .type('text/html; charset=utf-8')
          .send(page)
      );
    });
  }
}
