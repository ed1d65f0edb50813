// Fills the `default` annotations of a schema into a value, as TypeBox's Value.Default does (the same walk: a
// missing value takes its schema's default, then objects, arrays, records and unions are entered), without
// `typebox/value`, which brings TypeBox's whole type engine (677 module files, about 12 MB resident) into every
// process for this one walk at startup. Mutates and returns `value`; check the result against the schema afterwards.
// src/schema/defaults.test.ts compares it with Value.Default.
import type { TSchema } from 'typebox';
import { check } from './fits.ts';

type Schema = Record<string, unknown>;

// As TypeBox's guard: arrays count as objects here too.
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const defaultOf = (schema: Schema) =>
  typeof schema.default === 'function' ? (schema.default as () => unknown)() : structuredClone(schema.default);

const kind = (schema: Schema) => (schema as { '~kind'?: string })['~kind'];

export function fillDefaults(type: TSchema, value: unknown): unknown {
  const schema = type as Schema;
  const filled = value === undefined && 'default' in schema ? defaultOf(schema) : value;
  switch (kind(schema)) {
    case 'Object':
      return fromObject(schema, filled);
    case 'Array':
      if (Array.isArray(filled))
        for (let i = 0; i < filled.length; i += 1) filled[i] = fillDefaults(schema.items as Schema, filled[i]);
      return filled;
    case 'Record':
      return fromRecord(schema, filled);
    case 'Union':
      // The first member the defaulted copy fits; the value unchanged if none does.
      for (const member of schema.anyOf as Schema[]) {
        const result = fillDefaults(member, structuredClone(filled));
        if (check(member, result)) return result;
      }
      return filled;
    default:
      return filled;
  }
}

function fromObject(schema: Schema, value: unknown): unknown {
  if (!isObject(value)) return value;
  const properties = schema.properties as Record<string, Schema>;
  for (const [key, property] of Object.entries(properties)) {
    const result = fillDefaults(property, value[key]);
    // Undefined stays unassigned where the property is optional or has no default (no key appears from nothing).
    if (result === undefined && ('~optional' in property || !('default' in property))) continue;
    value[key] = result;
  }
  const additional = schema.additionalProperties;
  if (!isObject(additional)) return value;
  for (const key of Object.keys(value)) if (!(key in properties)) value[key] = fillDefaults(additional, value[key]);
  return value;
}

function fromRecord(schema: Schema, value: unknown): unknown {
  if (!isObject(value)) return value;
  const [pattern, member] = Object.entries(schema.patternProperties as Record<string, Schema>)[0] ?? [];
  if (pattern === undefined || member === undefined) return value;
  const key = new RegExp(pattern);
  for (const name of Object.keys(value))
    if (key.test(name) && 'default' in member) value[name] = fillDefaults(member, value[name]);
  const additional = schema.additionalProperties;
  if (!isObject(additional)) return value;
  for (const name of Object.keys(value)) if (!key.test(name)) value[name] = fillDefaults(additional, value[name]);
  return value;
}
