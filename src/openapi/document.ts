// Builds the OpenAPI 3.1 document from the routes the app registered (collect.ts) and their schemas: the contract is
// generated from what the server validates, never written beside it by hand (SPEC.md "Versioning").
import { acceptsNoBody, BODY_READING_METHODS, declaredBodyType, FORM_MEDIA_TYPE } from '../http/body-media-type.ts';
import { type ErrorCode, errorCatalogue } from '../http/error-catalogue.ts';
import { BODY_ERRORS, COMMON_ERRORS, errorCodesByStatus, errorEnvelopeSchema } from '../http/error-responses.ts';
import type { CollectedRoute } from './collect.ts';
import { securitySchemes } from './security.ts';

type Json = Record<string, unknown>;

export interface DocumentOptions {
  /** The issuer: the server URL every path is relative to. */
  issuer: string;
  version: string;
}

const DESCRIPTION = [
  'The HTTP API of Gatehouse, generated from the schemas its routes validate with.',
  '',
  'Every error answer is the envelope `{"error", "error_description", "request_id", "fields"?}`; the codes each',
  'operation can give are listed per status, and docs/errors.md describes every code. Requests that match no route',
  'get 404 `not_found` (or the web UI page for a browser), a method a path does not take 405 `method_not_allowed`,',
  'an over-long path 414 `uri_too_long` and oversized headers 431 `headers_too_large`. An operation that takes a',
  'body takes the one media type its requestBody names, and one that takes none takes no body: any other',
  'Content-Type (or none) is 415 `unsupported_media_type`, before anything else about the request is checked.',
  'Every answer carries X-Request-Id.',
].join('\n');

/** `/admin/clients/:id` → `/admin/clients/{id}`; a wildcard (`/admin/console/*`) becomes `{path}`. */
export const openApiPath = (url: string): string =>
  url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');

/** Path parameters the route's schema does not describe: every templated name needs one (OpenAPI 3.1 §4.8.12). */
function undescribedPathParameters(url: string, described: Json[]): Json[] {
  const names = [...openApiPath(url).matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  return names
    .filter((name) => !described.some((parameter) => parameter.name === name))
    .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

/** A JSON copy without TypeBox's own non-JSON-Schema members, so the document holds plain JSON Schema. */
function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

function parameters(location: 'path' | 'query' | 'header', schema: unknown): Json[] {
  if (!schema) return [];
  const { properties = {}, required = [] } = plain(schema) as {
    properties?: Record<string, Json>;
    required?: string[];
  };
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  302: 'Found: redirects to Location',
  303: 'See other: redirects to Location',
};

/** One `responses` entry from a route's response schema: JSON by default, or its own content, or no body. */
function response(status: string, schema: Json): Json {
  const { description, content, headers, ...rest } = schema as Json & {
    description?: string;
    content?: Record<string, { schema: unknown }>;
    headers?: Json;
  };
  const entry: Json = { description: description ?? STATUS_TEXT[status] ?? (schema.title as string) ?? 'Error' };
  if (headers) entry.headers = plain(headers);
  if (content) entry.content = plain(content);
  else if (rest.type !== 'null') entry.content = { 'application/json': { schema: plain(schema) } };
  return entry;
}

/** The codes of a response that is the error envelope (errorEnvelopeSchema), else undefined. */
function envelopeCodes(entry: Json): string[] | undefined {
  const json = (entry.content as Json | undefined)?.['application/json'] as { schema?: Json } | undefined;
  if (json?.schema?.title !== 'ErrorEnvelope') return undefined;
  return (json.schema.properties as { error: { enum: string[] } }).error.enum;
}

const errorAnswer = (codes: readonly string[]): Json => ({
  description: `Error: ${[...new Set(codes)].sort().join(', ')}.`,
  content: { 'application/json': { schema: envelopeRef(codes) } },
});

/** The HTTP layer's codes by status: an operation that adds none of its own refers to components.responses. */
const COMMON_BY_STATUS = errorCodesByStatus([...COMMON_ERRORS, ...BODY_ERRORS]);
const commonName = (status: string) => `Error${status}`;
const commonRef = (status: string): Json => ({ $ref: `#/components/responses/${commonName(status)}` });
const sameCodes = (a: readonly string[], b: readonly string[] | undefined) =>
  b !== undefined && [...new Set(a)].sort().join() === [...new Set(b)].sort().join();

const envelopeRef = (codes: readonly string[]): Json => ({
  allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }],
  properties: { error: { enum: [...new Set(codes)].sort() } },
});

function operation(route: CollectedRoute): Json {
  const { schema = {} } = route;
  const responses: Record<string, Json> = {};
  for (const [status, entry] of Object.entries((schema.response ?? {}) as Record<string, Json>))
    responses[status] = response(status, entry);
  // The HTTP layer's codes join the route's own, per status. An envelope refers to the one in components and
  // narrows `error` to its status's codes; where the route answers that status with a page of its own (HTML), the
  // envelope is the JSON alternative the HTTP layer sends.
  // body-media-type.ts: a body of the declared type can be too large or malformed; any other is 415.
  const bodyType = BODY_READING_METHODS.has(route.method) ? declaredBodyType(schema) : null;
  const hasBody = bodyType !== null;
  const readsBody = BODY_READING_METHODS.has(route.method);
  const codes = new Map<string, string[]>();
  for (const [status, entry] of Object.entries(responses)) {
    const found = envelopeCodes(entry);
    if (found) codes.set(status, found);
  }
  const bodyErrors: readonly ErrorCode[] = hasBody ? BODY_ERRORS : readsBody ? ['unsupported_media_type'] : [];
  for (const [status, common] of errorCodesByStatus([...COMMON_ERRORS, ...bodyErrors]))
    codes.set(String(status), [...(codes.get(String(status)) ?? []), ...common]);
  for (const [status, list] of codes) {
    const content = { 'application/json': { schema: envelopeRef(list) } };
    const existing = responses[status];
    const alsoOther = Object.keys((existing?.content as Json | undefined) ?? {}).some((t) => t !== 'application/json');
    // A page of the route's own at this status keeps its media types beside the envelope.
    if (existing && (alsoOther || !envelopeCodes(existing)))
      existing.content = { ...(existing.content as Json), ...content };
    else if (sameCodes(list, COMMON_BY_STATUS.get(Number(status)))) responses[status] = commonRef(status);
    else responses[status] = errorAnswer(list);
  }

  const op: Json = { operationId: operationId(route) };
  if (schema.summary) op.summary = schema.summary;
  if (schema.description) op.description = schema.description;
  if (schema.tags) op.tags = [...schema.tags];
  op.security = schema.security ? [...schema.security] : [];
  const pathParams = parameters('path', schema.params);
  const params = [
    ...pathParams,
    ...undescribedPathParameters(route.url, pathParams),
    ...parameters('query', schema.querystring ?? schema.handlerParses?.query),
    ...parameters('header', schema.headers),
  ];
  if (params.length > 0) op.parameters = params;
  if (hasBody) {
    const content = {
      [bodyType]: { schema: plain(bodyType === FORM_MEDIA_TYPE ? schema.handlerParses?.form : schema.body) },
    };
    op.requestBody = { required: !acceptsNoBody(schema.body), content };
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return op;
}

/** `GET /admin/clients/:id` → `getAdminClientsById`: unique, since method and path are. */
function operationId({ method, url }: CollectedRoute): string {
  const words = openApiPath(url)
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const parameter = /^\{(.+)\}$/.exec(segment)?.[1];
      const word = (parameter ? `by-${parameter}` : segment).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string = '') =>
        c.toUpperCase(),
      );
      return word.charAt(0).toUpperCase() + word.slice(1);
    });
  return `${method.toLowerCase()}${words.join('')}`;
}

/** The envelope's members, with `error` any catalogued code (each response narrows it to its own). */
function envelopeProperties(): Json {
  const { properties } = plain(errorEnvelopeSchema(Object.keys(errorCatalogue) as ErrorCode[])) as {
    properties: Json & { error: Json };
  };
  properties.error = { ...properties.error, description: 'A code from the error catalogue (docs/errors.md).' };
  return properties;
}

export function buildOpenApiDocument(routes: readonly CollectedRoute[], options: DocumentOptions): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    if (route.schema?.hide) continue;
    const path = openApiPath(route.url);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((path) => [path, paths[path]]),
  );
  return {
    openapi: '3.1.1',
    info: {
      title: 'Gatehouse',
      version: options.version,
      description: DESCRIPTION,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: options.issuer }],
    security: [],
    paths: sortedPaths,
    components: {
      schemas: { ErrorEnvelope: { ...plain(errorEnvelopeSchema([])), properties: envelopeProperties() } },
      responses: Object.fromEntries(
        [...COMMON_BY_STATUS].map(([status, codes]) => [commonName(String(status)), errorAnswer(codes)]),
      ),
      securitySchemes: securitySchemes(options.issuer),
    },
  };
}
