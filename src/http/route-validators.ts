// Request validators compiled when Gatehouse is built, not in every process that starts (docs/decisions.md, "Route
// validators compiled at build time"). Fastify compiles each route's body, query, params and headers schema with
// Ajv as the route is registered; that kept Ajv, its code generator and a compiled function per schema in every
// worker, about 7 MB of its idle memory. `npm run validators` (scripts/route-validators.ts) builds the app once,
// has Ajv write each validator out as source (Ajv's standalone code), and stores them in
// route-validators.generated.cjs; here a route's schema finds its validator there by a hash of what it was compiled
// from. A schema not found (edited since the file was generated: test/route-validators.test.ts fails then)
// is compiled by Ajv as before, so a stale file costs memory, never correctness.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';
import generated from './route-validators.generated.cjs';

const require = createRequire(import.meta.url);

/** What Fastify hands the compiler for one part of one route. */
export interface RouteSchemaDefinition {
  schema: unknown;
  method?: string;
  url?: string;
  httpPart?: string;
}
/** A route part's validator as Fastify calls it: true or false, with Ajv's `errors` on the function. */
export type CompileRoute = (route: RouteSchemaDefinition) => unknown;
/** Fastify's `schemaController.compilersFactory.buildValidator`: shared schemas and its `ajv` option in. */
export type ValidatorBuilder = (external: unknown, ajvOptions: { customOptions?: object } | undefined) => CompileRoute;

/**
 * What identifies a compiled validator: Ajv's options, the shared schemas, the request part and the schema itself.
 * JSON.stringify is stable here: the schemas are built by the same code in the same order every time.
 */
export function validatorKey(
  external: unknown,
  options: Parameters<ValidatorBuilder>[1],
  route: RouteSchemaDefinition,
): string {
  const from = [options?.customOptions ?? null, external, route.httpPart ?? null, route.schema];
  return createHash('sha256').update(JSON.stringify(from)).digest('base64url');
}

/**
 * Fastify lower-cases the header names of a headers schema (its properties, required names and those of nested
 * branches) only for its own compiler; with ours it passes the schema as written, and Node's header names are lower
 * case. A capital letter in a name would then never match: refused when the route is built.
 */
export function assertLowerCaseHeaders(route: RouteSchemaDefinition): void {
  if (route.httpPart !== 'headers') return;
  const named = capitalisedName(route.schema);
  if (named !== null)
    throw new Error(`${route.method} ${route.url}: name the header "${named}" in lower case in its schema`);
}

/** The first name in a `properties` object or a `required` list, at any depth, that has a capital letter. */
function capitalisedName(schema: unknown): string | null {
  if (typeof schema !== 'object' || schema === null) return null;
  const members = Object.entries(schema as Record<string, unknown>);
  for (const [key, value] of members) {
    const names =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.keys(value)
        : key === 'required' && Array.isArray(value)
          ? value.filter((name): name is string => typeof name === 'string')
          : [];
    const named = names.find((name) => name !== name.toLowerCase());
    if (named !== undefined) return named;
    const nested = capitalisedName(value);
    if (nested !== null) return nested;
  }
  return null;
}

/** Ajv as Fastify runs it by default (@fastify/ajv-compiler), loaded only when a schema has no generated validator. */
function ajvCompiler(): ValidatorBuilder {
  const selector = require('@fastify/ajv-compiler') as () => ValidatorBuilder;
  return selector();
}

export interface PrecompiledOptions {
  /** The generated validators by key; the file's by default. */
  validators?: ReadonlyMap<string, () => unknown>;
  /** Told of each schema compiled at start because the generated file lacks it (tests count them). */
  onCompiled?: (route: RouteSchemaDefinition) => void;
}

/**
 * The validators of route-validators.generated.cjs, and Ajv for a schema it lacks. Fastify calls a standalone
 * validator without the parent object, so a root value Ajv replaced (type coercion of a whole query string, which
 * app.ts's `coerceTypes: false` rules out) would not reach the request; members filled in or changed in place do.
 */
export function precompiledValidators(options: PrecompiledOptions = {}): ValidatorBuilder {
  const validators = options.validators ?? generated.validators;
  // Routes that share a schema share its function, as Ajv's own cache of compiled schemas would have them.
  const loaded = new Map<string, unknown>();
  return (external, ajvOptions) => {
    let fallback: CompileRoute | undefined;
    return (route) => {
      assertLowerCaseHeaders(route);
      const key = validatorKey(external, ajvOptions, route);
      const load = validators.get(key);
      if (load !== undefined) {
        if (!loaded.has(key)) loaded.set(key, load());
        return loaded.get(key);
      }
      options.onCompiled?.(route);
      fallback ??= ajvCompiler()(external, ajvOptions);
      return fallback(route);
    };
  };
}

type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/**
 * Fastify's compilers: request validators from `buildValidator`, responses written by JSON.stringify (app.ts says
 * why), which also keeps Fastify's serializer compiler unloaded. Fastify types `buildValidator` as a union of Ajv's
 * and JTD's factories; ours answers as its Ajv one does.
 */
export function fastifyCompilers(buildValidator: ValidatorBuilder): Compilers {
  return {
    buildValidator: buildValidator as unknown as NonNullable<Compilers['buildValidator']>,
    buildSerializer: () => () => (data) => JSON.stringify(data),
  };
}
