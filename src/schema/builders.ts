// The TypeBox builders Gatehouse uses (Type.String, Type.Object, ...), written out: each returns the same JSON
// Schema object TypeBox 1.x returns, with the same hidden `~kind` / `~optional` / `~unsafe` marks, and keeps
// TypeBox's own signature (so `Static<>` and Fastify's TypeBox type provider infer exactly as before). Importing
// `typebox` for these loaded 373 module files (its type engine and TypeScript-syntax parser come with the builders)
// and about 8 MB into every process, the supervisor included (docs/decisions.md, "Smaller processes").
// src/schema/builders.test.ts checks every builder against TypeBox's output.
import type { Type as TypeBox } from 'typebox';

type Options = Record<string, unknown> | undefined;

/** A schema object with hidden (non-enumerable) marks, as TypeBox's Memory.Create makes one. */
function create(hidden: Record<string, unknown>, enumerable: Record<string, unknown>, options: Options) {
  const schema: Record<string, unknown> = { ...enumerable, ...options };
  for (const [key, value] of Object.entries(hidden))
    Object.defineProperty(schema, key, { configurable: true, writable: true, enumerable: false, value });
  return schema;
}

/** A copy of `schema` with every property as it was (hidden ones stay hidden) plus hidden marks. */
function update(schema: object, hidden: Record<string, unknown>) {
  const copy: Record<string, unknown> = {};
  for (const key of Reflect.ownKeys(schema)) {
    if (typeof key === 'string' && key in hidden) continue;
    Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(schema, key) as PropertyDescriptor);
  }
  for (const [key, value] of Object.entries(hidden))
    Object.defineProperty(copy, key, { configurable: true, writable: true, enumerable: false, value });
  return copy;
}

const isOptional = (schema: unknown) => typeof schema === 'object' && schema !== null && '~optional' in schema;

const requiredOf = (properties: Record<string, unknown>) => {
  const required = Object.keys(properties).filter((key) => !isOptional(properties[key]));
  return required.length > 0 ? { required } : {};
};

const buildString = (options?: Options) => create({ '~kind': 'String' }, { type: 'string' }, options);
const buildInteger = (options?: Options) => create({ '~kind': 'Integer' }, { type: 'integer' }, options);
const buildBoolean = (options?: Options) => create({ '~kind': 'Boolean' }, { type: 'boolean' }, options);
const buildNull = (options?: Options) => create({ '~kind': 'Null' }, { type: 'null' }, options);
const buildArray = (items: unknown, options?: Options) =>
  create({ '~kind': 'Array' }, { type: 'array', items }, options);
const buildUnion = (anyOf: unknown[], options?: Options) => create({ '~kind': 'Union' }, { anyOf }, options);
const buildEnum = (values: unknown[], options?: Options) => create({ '~kind': 'Enum' }, { enum: values }, options);
const buildLiteral = (value: string | number | boolean, options?: Options) =>
  create({ '~kind': 'Literal' }, { type: typeof value, const: value }, options);
const buildObject = (properties: Record<string, unknown>, options?: Options) =>
  create({ '~kind': 'Object' }, { type: 'object', ...requiredOf(properties), properties }, options);
const buildOptional = (schema: object) => update(schema, { '~optional': true });
const buildUnsafe = (schema: object) => update(schema, { '~unsafe': null });

function buildRecord(key: { type?: unknown; pattern?: unknown }, value: unknown, options?: Options) {
  if (key.type !== 'string') throw new Error('Type.Record: only string keys are built here');
  const pattern = typeof key.pattern === 'string' ? key.pattern : '^.*$';
  return create({ '~kind': 'Record' }, { type: 'object', patternProperties: { [pattern]: value } }, options);
}

/** TypeBox's Partial and Omit rebuild the object from its properties alone: the object's options are dropped. */
function buildPartial(object: { properties: Record<string, object> }) {
  const properties = Object.fromEntries(
    Object.entries(object.properties).map(([key, schema]) => [
      key,
      isOptional(schema) ? schema : buildOptional(schema),
    ]),
  );
  return buildObject(properties);
}

function buildOmit(object: { properties: Record<string, unknown> }, keys: readonly string[]) {
  return buildObject(Object.fromEntries(Object.entries(object.properties).filter(([key]) => !keys.includes(key))));
}

// Exported under TypeBox's names (String, Object, ...) without shadowing the globals inside this file.
const StringType = buildString as unknown as typeof TypeBox.String;
const IntegerType = buildInteger as unknown as typeof TypeBox.Integer;
const BooleanType = buildBoolean as unknown as typeof TypeBox.Boolean;
const NullType = buildNull as unknown as typeof TypeBox.Null;
const ArrayType = buildArray as unknown as typeof TypeBox.Array;
const UnionType = buildUnion as unknown as typeof TypeBox.Union;
const EnumType = buildEnum as unknown as typeof TypeBox.Enum;
const LiteralType = buildLiteral as unknown as typeof TypeBox.Literal;
const ObjectType = buildObject as unknown as typeof TypeBox.Object;
const OptionalType = buildOptional as unknown as typeof TypeBox.Optional;
const UnsafeType = buildUnsafe as unknown as typeof TypeBox.Unsafe;
const RecordType = buildRecord as unknown as typeof TypeBox.Record;
const PartialType = buildPartial as unknown as typeof TypeBox.Partial;
const OmitType = buildOmit as unknown as typeof TypeBox.Omit;

export type { Static, TProperties, TSchema } from 'typebox';
export {
  ArrayType as Array,
  BooleanType as Boolean,
  EnumType as Enum,
  IntegerType as Integer,
  LiteralType as Literal,
  NullType as Null,
  ObjectType as Object,
  OmitType as Omit,
  OptionalType as Optional,
  PartialType as Partial,
  RecordType as Record,
  StringType as String,
  UnionType as Union,
  UnsafeType as Unsafe,
};
