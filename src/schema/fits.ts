// Whether a value fits one of our JSON Schemas (src/schema/builders.ts), decided without TypeBox where that is
// certain. `typebox/schema` is 235 module files and about 16 MB of RSS (9 MB private) in every process that checks
// its configuration at start (docs/decisions.md, "Smaller processes: TypeBox only to explain, the database prepared
// in a short-lived process"). A valid configuration, the case of every start that succeeds, is confirmed here;
// TypeBox is loaded only to explain a value that does not fit (its Errors are what operators read) or when this walk
// meets something it does not decide exactly as TypeBox does.
//
// Answers: true (fits), false (does not), undefined (undecided: a keyword not handled here, an undefined value).
// Each handled keyword follows TypeBox 1.x's engine (typebox/build/schema/engine/*.mjs): `object` excludes arrays,
// `number` is finite, string lengths count code points, patterns are Unicode RegExps, `required` means the key is
// present. src/schema/fits.test.ts compares the answers with TypeBox's Check.
import { createRequire } from 'node:module';
import type * as TypeBoxSchema from 'typebox/schema';

type Schema = Record<string, unknown>;
type Answer = boolean | undefined;

const require = createRequire(import.meta.url);
let typebox: typeof TypeBoxSchema | null = null;

/** TypeBox's checker, loaded at the first value this walk cannot confirm. */
export function typeboxSchema(): typeof TypeBoxSchema {
  typebox ??= require('typebox/schema') as typeof TypeBoxSchema;
  return typebox;
}

/** Keywords that never change whether a value fits. */
const ANNOTATIONS = new Set(['default', 'description', 'title', 'examples', '$comment', 'readOnly', 'writeOnly']);
const HANDLED = new Set([
  'type',
  'const',
  'enum',
  'anyOf',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const patterns = new Map<string, RegExp>();
const regexp = (pattern: string) => {
  const compiled = patterns.get(pattern) ?? new RegExp(pattern, 'u');
  patterns.set(pattern, compiled);
  return compiled;
};

function typeFits(type: unknown, value: unknown): Answer {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return Number.isFinite(value);
    case 'null':
      return value === null;
    case 'string':
      return typeof value === 'string';
    default:
      return undefined;
  }
}

/** Any answer false: false (one constraint certainly broken is enough); every one true: true; else undefined. */
function all(answers: Iterable<Answer>): Answer {
  let result: Answer = true;
  for (const answer of answers) {
    if (answer === false) return false;
    if (answer === undefined) result = undefined;
  }
  return result;
}

function* objectAnswers(schema: Schema, value: Record<string, unknown>): Generator<Answer> {
  for (const key of (schema.required as string[] | undefined) ?? []) yield Object.hasOwn(value, key);
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const patternEntries = Object.entries((schema.patternProperties as Record<string, Schema> | undefined) ?? {});
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) {
      yield undefined; // TypeBox's optional properties accept an undefined value; not decided here
      continue;
    }
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property) yield fits(property, item);
    const matching = patternEntries.filter(([pattern]) => regexp(pattern).test(key));
    for (const [, member] of matching) yield fits(member, item);
    if (property || matching.length > 0 || !('additionalProperties' in schema)) continue;
    const additional = schema.additionalProperties;
    yield additional === false ? false : additional === true ? true : fits(additional as Schema, item);
  }
}

const codePoints = (text: string) => [...text].length;

function* answers(schema: Schema, value: unknown): Generator<Answer> {
  if (value === undefined) {
    yield undefined;
    return;
  }
  for (const keyword of Object.keys(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    if (!HANDLED.has(keyword)) {
      yield undefined;
      return;
    }
  }
  if ('type' in schema) {
    const type = typeFits(schema.type, value);
    yield type;
    if (type !== true) return;
  }
  if ('const' in schema) yield typeof schema.const === 'object' ? undefined : value === schema.const;
  if (Array.isArray(schema.enum))
    yield schema.enum.some((item) => typeof item === 'object') ? undefined : schema.enum.includes(value);
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf.map((member) => fits(member as Schema, value));
    yield members.includes(true) ? true : members.includes(undefined) ? undefined : false;
  }
  if (isObject(value)) yield all(objectAnswers(schema, value));
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number') yield value.length >= schema.minItems;
    if (typeof schema.maxItems === 'number') yield value.length <= schema.maxItems;
    if ('items' in schema) yield all(value.map((item) => fits(schema.items as Schema, item)));
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number') yield codePoints(value) >= schema.minLength;
    if (typeof schema.maxLength === 'number') yield codePoints(value) <= schema.maxLength;
    if (typeof schema.pattern === 'string') yield regexp(schema.pattern).test(value);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number') yield value >= schema.minimum;
    if (typeof schema.maximum === 'number') yield value <= schema.maximum;
  }
}

/** true: `value` fits `schema`; false: it does not; undefined: ask TypeBox. */
export function fits(schema: object, value: unknown): Answer {
  if (typeof schema === 'boolean') return schema;
  return all(answers(schema as Schema, value));
}

/** TypeBox's Check, answered here when that is certain. */
export function check(schema: object, value: unknown): boolean {
  return fits(schema, value) ?? typeboxSchema().Check(schema as Parameters<typeof TypeBoxSchema.Check>[0], value);
}
