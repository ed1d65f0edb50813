// Records every route as it is registered (Fastify's onRoute hook), so the document describes exactly the routes
// the app serves. Fastify's automatic HEAD twin of each GET is left out: it answers as the GET does, without a body.
import type { FastifyInstance, FastifySchema } from 'fastify';

export interface CollectedRoute {
  method: string;
  url: string;
  schema: FastifySchema | undefined;
}

/** Must run before any route is registered; the array fills as routes are added. */
export function collectRoutes(app: FastifyInstance): CollectedRoute[] {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' && routes.some((r) => r.method === 'GET' && r.url === route.url)) continue;
      routes.push({ method, url: route.url, schema: route.schema });
    }
  });
  return routes;
}
