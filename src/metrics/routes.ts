// GET /metrics: Prometheus text exposition behind the metrics bearer token (the secret file metrics-bearer.token;
// Prometheus reads it with `authorization.credentials_file`). The token is compared in constant time; anything else
// is 401 invalid_token with WWW-Authenticate (RFC 6750 §3), so the route reveals nothing without it.
import type { FastifyInstance } from 'fastify';
import { constantTimeEqual } from '../crypto/primitives.ts';
import { errorResponses } from '../http/error-responses.ts';
import { GatehouseError } from '../http/errors.ts';
import { METRICS_TOKEN, mediaAnswer } from '../http/route-schema.ts';
import type { Metrics } from './registry.ts';

export interface MetricsRouteDeps {
  metrics: Metrics;
  /** The metrics bearer secret as loaded (its bytes); the token sent is their base64url text, as in the file. */
  bearerKey: Buffer;
}

const BEARER = /^Bearer ([A-Za-z0-9_-]+)$/;

export async function metricsRoutes(app: FastifyInstance, deps: MetricsRouteDeps): Promise<void> {
  const expected = deps.bearerKey.toString('base64url');
  const schema = {
    summary: 'Prometheus metrics (text exposition format)',
    tags: ['operations'],
    security: METRICS_TOKEN,
    response: { 200: mediaAnswer('The metrics.', 'text/plain'), ...errorResponses('invalid_token') },
  };
  app.get('/metrics', { schema }, async (request, reply) => {
    const presented = BEARER.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!constantTimeEqual(presented, expected))
      throw new GatehouseError('invalid_token', 'Send the metrics bearer token as Authorization: Bearer <token>', {
        headers: { 'www-authenticate': 'Bearer realm="metrics"' },
      });
    const body = await deps.metrics.read();
    return reply
      .header('content-type', deps.metrics.registry.contentType)
      .header('cache-control', 'no-store')
      .send(body);
  });
}
