// The bodies the content-type sweep sends each operation: none, JSON (a valid object built from the operation's
// schema, malformed, an array, a string, deep nesting, past the size limit), forms (valid, a broken escape, a
// repeated key), other media types, a charset parameter and Content-Type values that are no media type at all.
type Json = Record<string, unknown>;

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';
// The methods whose body the server reads (GET and HEAD bodies are ignored).
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface Variant {
  name: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** Whether an operation with this method must refuse this body with 415 unsupported_media_type. */
  unsupportedBy(method: string): boolean;
}

/** A value the schema accepts where that is easy to tell: required properties only, the first of every choice. */
function sampleOf(schema: Json | undefined, schemas: Record<string, Json>, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (typeof schema.$ref === 'string')
    return sampleOf(schemas[schema.$ref.split('/').at(-1) as string], schemas, depth);
  const choice = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as Json[] | undefined;
  if (choice?.[0]) return sampleOf(choice[0], schemas, depth + 1);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((name) => [name, sampleOf(properties[name], schemas, depth + 1)]));
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return (schema.minimum as number | undefined) ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      if (schema.format === 'uri') return 'https://app.acme.test/callback';
      if (schema.format === 'email') return 'someone@acme.test';
      return 'x'.repeat(Math.max(1, (schema.minLength as number | undefined) ?? 1));
    default:
      return 'x';
  }
}

const essenceOf = (type: string | undefined) => type?.split(';')[0]?.trim().toLowerCase();

/**
 * `content` is the operation's requestBody content (empty when it takes no body); `optional` says the requestBody is
 * not required (it then also takes a request that sends nothing at all).
 */
export function bodyVariants(
  content: Record<string, { schema: Json }>,
  schemas: Record<string, Json>,
  limit: number,
  optional = false,
) {
  const accepted = Object.keys(content);
  const takes = (type: string) => accepted.includes(type);
  const sample = sampleOf(content[JSON_TYPE]?.schema ?? content[FORM_TYPE]?.schema, schemas) ?? {};
  const formSample = new URLSearchParams(
    Object.entries(sample as Json).map(([name, value]) => [name, typeof value === 'string' ? value : 'x']),
  ).toString();
  const firstKey = Object.keys(sample as Json)[0] ?? 'k';

  const variant = (name: string, type: string | null, payload?: string | Buffer): Variant => ({
    name,
    headers: type === null ? {} : { 'content-type': type },
    ...(payload === undefined ? {} : { payload }),
    // An operation that takes a body takes the one type it names, and needs it named (unless its body is optional
    // and nothing at all is sent); one that takes none, none.
    unsupportedBy: (method) =>
      BODY_METHODS.has(method) &&
      (accepted.length > 0
        ? !takes(essenceOf(type ?? '') ?? '') && !(optional && type === null && payload === undefined)
        : payload !== undefined),
  });
  const nested = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  return [
    variant('none', null),
    variant('json', JSON_TYPE, JSON.stringify(sample)),
    variant('json-malformed', JSON_TYPE, '{"a":'),
    variant('json-array', JSON_TYPE, '[1,2,3]'),
    variant('json-string', JSON_TYPE, '"x"'),
    variant('json-deep', JSON_TYPE, nested),
    variant('json-huge', JSON_TYPE, JSON.stringify({ a: 'x'.repeat(limit + 1) })),
    variant('json-charset', `${JSON_TYPE}; charset=utf-8`, JSON.stringify(sample)),
    variant('form', FORM_TYPE, formSample || 'a=1'),
    variant('form-malformed', FORM_TYPE, 'a=%&b=%zz&%=c'),
    variant('form-repeated', FORM_TYPE, `${firstKey}=1&${firstKey}=2`),
    variant('form-charset', `${FORM_TYPE}; charset=utf-8`, formSample || 'a=1'),
    variant('text', 'text/plain', 'hello'),
    variant(
      'multipart',
      'multipart/form-data; boundary=b0undary',
      '--b0undary\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--b0undary--\r\n',
    ),
    variant('xml', 'application/xml', '<a>1</a>'),
    variant('octet-stream', 'application/octet-stream', Buffer.from([0, 1, 2, 255])),
    variant('unknown', 'application/x-foo', 'foo'),
    variant('garbage-type', 'not a media type', 'x'),
    variant('garbage-parameters', 'application/json;;; =; charset', '{}'),
  ];
}
