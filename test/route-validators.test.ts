// The request validators compiled when Gatehouse is built (src/http/route-validators.ts, `npm run validators`): an
// app of every route finds each of its schemas there and never loads Ajv's compiler, the committed file is what the
// routes generate now, every generated validator answers exactly as Ajv compiling the schema at start would (the same
// verdict, errors and filled-in defaults on random values), and a schema the file lacks is still validated.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import Fastify from 'fastify';
import { CONTRACT_ISSUER, withContractApp } from '../scripts/openapi-contract.ts';
import { generateValidatorsSource, VALIDATORS_FILE } from '../scripts/route-validators-source.ts';
import {
  assertLowerCaseHeaders,
  type CompileRoute,
  fastifyCompilers,
  precompiledValidators,
  type RouteSchemaDefinition,
  type ValidatorBuilder,
} from '../src/http/route-validators.ts';
import { recordResolvedModules } from './helpers/resolved-modules.ts';

const resolved = recordResolvedModules();
const loadedFrom = (name: string) => [...resolved].filter((url) => url.includes(`/node_modules/${name}/`));

const require = createRequire(import.meta.url);
/** Fastify's own compiler, as it compiled every route before the build did. */
const ajvAtStart = () => (require('@fastify/ajv-compiler') as () => ValidatorBuilder)();

interface Compiled {
  route: RouteSchemaDefinition;
  external: unknown;
  ajvOptions: Parameters<ValidatorBuilder>[1];
}

/** Builds the app of every route with the build's validators; what each route part was compiled from. */
async function compileEveryRoute(onCompiled: (route: RouteSchemaDefinition) => void): Promise<Compiled[]> {
  const seen: Compiled[] = [];
  const precompiled = precompiledValidators({ onCompiled });
  const recording: ValidatorBuilder = (external, ajvOptions) => {
    const compile = precompiled(external, ajvOptions);
    return (route) => {
      seen.push({ route, external, ajvOptions });
      return compile(route);
    };
  };
  await withContractApp({ buildValidator: recording }, async () => {});
  return seen;
}

test('an app of every route finds each validator in the build and loads neither of Fastify’s compilers', async () => {
  // The app as a node builds it, with its default validators.
  await withContractApp({}, async (app) => {
    // They run: a sign-in with a field it does not take is refused before anything else looks at it.
    const refused = await app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { origin: CONTRACT_ISSUER },
      payload: { unexpected: 1 },
    });
    assert.equal(refused.statusCode, 400, refused.body);
  });
  assert.ok(loadedFrom('fastify').length > 0, 'the check sees what the app loads');
  assert.deepEqual(loadedFrom('@fastify/ajv-compiler'), [], 'run `npm run validators`');
  assert.deepEqual(loadedFrom('@fastify/fast-json-stringify-compiler'), []);
  // Only Ajv's runtime helpers, which the generated code requires (ucs2length counts code points).
  assert.deepEqual(
    loadedFrom('ajv').filter((url) => !url.includes('/node_modules/ajv/dist/runtime/')),
    [],
  );
  const atStart: string[] = [];
  const compiled = await compileEveryRoute((route) => atStart.push(`${route.method} ${route.url} ${route.httpPart}`));
  assert.ok(compiled.length > 50, `the check sees the routes' schemas (${compiled.length})`);
  assert.deepEqual(atStart, []);
});

test('the committed validators are what the routes generate now (run `npm run validators` after a change)', async () => {
  assert.equal(readFileSync(VALIDATORS_FILE, 'utf8'), await generateValidatorsSource());
});

// Random values shaped by a schema: each property present or not, of its type or another, strings of every length
// around the limits with characters outside the BMP (Ajv counts code points), numbers at and off integers, extra
// properties, and a root that is sometimes not an object at all.
type Schema = Record<string, unknown>;
function randomValues(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const CHARACTERS = ['a', 'Z', '0', '-', '_', ' ', '.', ':', '/', 'é', '😀', '\u0000', '%', '=', '+'];
  const text = (limit: number) =>
    Array.from({ length: Math.floor(next() * (limit + 3)) }, () => pick(CHARACTERS)).join('');
  const other = (depth: number): unknown =>
    pick([
      () => null,
      () => true,
      () => Math.floor(next() * 2000) - 1000,
      () => next() * 10,
      () => text(20),
      () => (depth > 2 ? [] : [other(depth + 1)]),
      () => (depth > 2 ? {} : { x: other(depth + 1) }),
    ])();
  const value = (schema: Schema | undefined, depth: number): unknown => {
    if (schema === undefined || next() < 0.12) return other(depth);
    const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (options) return value(pick(options), depth);
    if (schema.const !== undefined && next() < 0.7) return schema.const;
    if (Array.isArray(schema.enum) && next() < 0.7) return pick(schema.enum);
    switch (schema.type) {
      case 'string': {
        const limit = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength + 2, 300) : 40;
        return text(limit);
      }
      case 'integer':
      case 'number':
        return pick([0, 1, -1, 2.5, 1e9, Number(schema.minimum ?? 0), Number(schema.maximum ?? 100) + 1]);
      case 'boolean':
        return next() < 0.5;
      case 'array':
        return depth > 3
          ? []
          : Array.from({ length: Math.floor(next() * 4) }, () => value(schema.items as Schema, depth + 1));
      case 'object': {
        const properties = (schema.properties ?? {}) as Record<string, Schema>;
        const result: Record<string, unknown> = {};
        for (const [name, property] of Object.entries(properties))
          if (next() < 0.75 || (schema.required as string[] | undefined)?.includes(name))
            if (next() < 0.95) result[name] = value(property, depth + 1);
        if (next() < 0.15) result[text(8) || 'extra'] = other(depth + 1);
        return result;
      }
      default:
        return other(depth);
    }
  };
  return (schema: unknown) => value(schema as Schema, 0);
}

test('every generated validator answers as Ajv compiling its schema at start would, on random values', async () => {
  const compiled = await compileEveryRoute(() => {});
  const seed = Date.now() % 100000;
  const valueFor = randomValues(seed);
  let accepted = 0;
  let refused = 0;
  for (const { route, external, ajvOptions } of compiled) {
    const built = precompiledValidators()(external, ajvOptions)(route) as CompileRoute & { errors?: unknown };
    const reference = ajvAtStart()(external, ajvOptions)(route) as CompileRoute & { errors?: unknown };
    assert.notEqual(built, reference);
    for (let i = 0; i < 200; i++) {
      const input = valueFor(route.schema);
      const [ours, theirs] = [structuredClone(input), structuredClone(input)];
      const verdict = (built as unknown as (data: unknown) => boolean)(ours);
      const expected = (reference as unknown as (data: unknown) => boolean)(theirs);
      const where = `${route.method} ${route.url} ${route.httpPart}, seed ${seed}, value ${JSON.stringify(input)}`;
      assert.equal(verdict, expected, where);
      assert.deepEqual(built.errors ?? null, reference.errors ?? null, where);
      assert.deepEqual(ours, theirs, `defaults filled in: ${where}`);
      if (expected) accepted++;
      else refused++;
    }
  }
  // Both verdicts were reached often enough for the comparison to mean something.
  assert.ok(accepted > 500 && refused > 500, `accepted ${accepted}, refused ${refused}`);
});

test('a schema the build did not see is compiled by Ajv at start, and a request it refuses is a 400', async () => {
  const atStart: string[] = [];
  const app = Fastify({
    schemaController: {
      compilersFactory: fastifyCompilers(
        precompiledValidators({ validators: new Map(), onCompiled: (route) => atStart.push(`${route.url}`) }),
      ),
    },
  });
  app.post(
    '/names',
    {
      schema: {
        body: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', maxLength: 2 } },
          additionalProperties: false,
        },
      },
    },
    async () => ({ ok: true }),
  );
  try {
    const long = await app.inject({ method: 'POST', url: '/names', payload: { name: '😀😀😀' } });
    assert.equal(long.statusCode, 400);
    assert.match(long.json().message, /must NOT have more than 2 characters/);
    const fits = await app.inject({ method: 'POST', url: '/names', payload: { name: '😀😀' } });
    assert.equal(fits.statusCode, 200);
    assert.deepEqual(atStart, ['/names']);
  } finally {
    await app.close();
  }
});

test('a headers schema naming a header with a capital letter is refused when the route is built', async () => {
  const app = Fastify({ schemaController: { compilersFactory: fastifyCompilers(precompiledValidators()) } });
  app.get(
    '/h',
    { schema: { headers: { type: 'object', properties: { DPoP: { type: 'string' } } } } },
    async () => ({}),
  );
  await assert.rejects(async () => app.ready(), /GET \/h: name the header "DPoP" in lower case/);
  await app.close();
});

test('a header name with a capital letter is refused wherever the schema names it', () => {
  const route = (schema: unknown) => ({ schema, method: 'GET', url: '/h', httpPart: 'headers' });
  assert.throws(() => assertLowerCaseHeaders(route({ required: ['X-Thing'] })), /"X-Thing"/);
  assert.throws(
    () => assertLowerCaseHeaders(route({ anyOf: [{ properties: { 'x-a': {} } }, { properties: { DPoP: {} } }] })),
    /"DPoP"/,
  );
  assertLowerCaseHeaders(route({ required: ['dpop'], properties: { dpop: { type: 'string' } } }));
  // Only headers: a body member may be named as its API says.
  assertLowerCaseHeaders({ ...route({ required: ['Name'] }), httpPart: 'body' });
});
