// What a route's `schema` may carry beyond what Fastify validates: the parts the published contract reads
// (src/openapi/document.ts). Fastify ignores keys it does not know, so these document without changing behaviour.
import type { TSchema } from 'typebox';
import { Type } from '../schema/type.ts';

/** Security requirement objects (OpenAPI 3.1 §4.8.30), naming schemes from src/openapi/security.ts. */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

/** The browser session cookie. */
export const SESSION: readonly SecurityRequirement[] = [{ session: [] }];
/** An access token, as a Bearer or DPoP-bound token. */
export const ACCESS_TOKEN: readonly SecurityRequirement[] = [{ accessToken: [] }, { dpopAccessToken: [] }];
/** OAuth client authentication in the form body. */
export const CLIENT: readonly SecurityRequirement[] = [{ clientAuthentication: [] }];
/** The metrics bearer token. */
export const METRICS_TOKEN: readonly SecurityRequirement[] = [{ metricsToken: [] }];

declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: readonly string[];
    /** Who may call: any one of these requirements; `[]` (or absent) means anyone. */
    security?: readonly SecurityRequirement[];
    /** Not part of the published contract (a route whose paths come from configuration). */
    hide?: boolean;
    /**
     * Parameters the handler parses itself, so Fastify validates none of them: documented only. The OAuth endpoints
     * answer malformed parameters with RFC 6749's codes (or an error page) and refuse repeated ones (oauth/form.ts).
     */
    handlerParses?: {
      /** The query string's parameters. */
      query?: TSchema;
      /** An application/x-www-form-urlencoded body. */
      form?: TSchema;
    };
  }
}

/** An answer without a body (204, or a 200 of RFC 7009 revocation). */
export const noBody = (description: string) => Type.Unsafe<void>({ type: 'null', description });

/** A redirect with no body; where it goes is the Location header. */
export const redirect = (description: string) =>
  Type.Unsafe<void>({
    type: 'null',
    description,
    headers: { location: { schema: Type.String(), description: 'Where to go next.' } },
  });

/** A body of another media type than JSON (an HTML page, a stylesheet, an image). */
export const mediaAnswer = (description: string, ...mediaTypes: string[]): TSchema =>
  Type.Unsafe({
    description,
    content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: Type.String() }])),
  });

/** A server-rendered HTML page. */
export const htmlPage = (description: string): TSchema => mediaAnswer(description, 'text/html');
