// Schema validation errors as sentences a person can act on. Ajv reports `body.email must match format "email"`;
// the envelope says `Email address: enter an address like name@example.org.` instead. `fields[].path` stays
// machine-readable (`body.redirect_uris.1`) so a form can put each problem beside its input, where the label is
// already shown: `problem` is therefore the sentence without the label, `error_description` the sentence with it.
import { type FieldProblem, InvalidRequest } from './errors.ts';

export interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath?: string;
  message?: string;
  params: Record<string, unknown>;
}

/** What a person calls each field they may type into; the key is the field name wherever it appears. */
const LABELS: Record<string, string> = {
  email: 'Email address',
  new_email: 'New email address',
  subject: 'Email address',
  password: 'Password',
  current_password: 'Current password',
  new_password: 'New password',
  display_name: 'Name',
  name: 'Name',
  identifier: 'Identifier',
  environment: 'Environment',
  application_id: 'Application',
  kind: 'Client type',
  redirect_uris: 'Redirect URIs',
  post_logout_redirect_uris: 'Sign-out redirect URIs',
  scopes: 'Scopes',
  audiences: 'Audiences',
  audience: 'Audience',
  first_party: 'First-party',
  token_endpoint_auth_method: 'Client authentication',
  jwks: 'Public keys (JWKS)',
  keys: 'Public key',
  jwks_uri: 'JWKS URL',
  dpop_bound_access_tokens: 'Require DPoP-bound tokens',
  require_pushed_authorization_requests: 'Require pushed authorization requests',
  backchannel_logout_uri: 'Back-channel logout URL',
  backchannel_logout_session_required: 'Back-channel logout session required',
  token_exchange_audiences: 'Token exchange audiences',
  device_authorization_grant: 'Device authorization grant',
  roles: 'Roles',
  ial: 'Identity assurance',
  totp: 'Authentication code',
  code: 'Authentication code',
  recovery_code: 'Recovery code',
  verification_id: 'Verification link',
  secret: 'Verification link',
  sub: 'Identity',
  id: 'Identifier',
  q: 'Search',
  limit: 'Page size',
  cursor: 'Page',
  actor: 'Actor',
  event: 'Event',
  since: 'From',
  until: 'To',
  reason: 'Reason',
};

/** What a field's pattern asks for, in words; the regular expression itself means nothing to most people. */
const PATTERN_HINTS: Record<string, string> = {
  identifier: 'use lowercase letters, digits and hyphens, starting with a letter or digit',
  scopes: 'use a scope name of printable characters without spaces, quotes or backslashes',
  roles: 'use lowercase letters, digits and . _ : -, starting with a letter or digit',
  totp: 'enter the 6 digits from your authenticator app',
  code: 'enter the 6 digits from your authenticator app',
  limit: 'enter a whole number from 1 to 100',
  sub: 'enter an identity id, which starts with usr_',
  id: 'use letters, digits, hyphens and underscores only',
};

const FORMAT_HINTS: Record<string, string> = {
  email: 'enter an address like name@example.org',
  uri: 'enter a full address like https://app.example.org/callback',
  'date-time': 'enter a date and time like 2026-01-31T09:00:00Z',
};

const TYPE_HINTS: Record<string, string> = {
  string: 'enter a single text value',
  integer: 'enter a whole number',
  number: 'enter a number',
  boolean: 'choose yes or no (true or false)',
  array: 'enter a list',
  object: 'enter an object',
};

const plural = (n: unknown, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `some_field` → `Some field`, for names the table does not know. */
const humanize = (name: string) => {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words === '' ? 'This request' : words[0]?.toUpperCase() + words.slice(1);
};

/** The label for a path's last segments: `body.redirect_uris.1` → `Redirect URIs, entry 2`. */
export function fieldLabel(path: string): string {
  const segments = path.split('.').filter((s) => s !== '');
  const last = segments.at(-1) ?? '';
  if (/^\d+$/.test(last)) {
    const owner = segments.at(-2) ?? '';
    return `${LABELS[owner] ?? humanize(owner)}, entry ${Number(last) + 1}`;
  }
  if (segments.length <= 1) return 'The request';
  // A client-chosen name that is not a plain name is never echoed (see plainName).
  if (last === '?') return 'A field with an unusual name';
  return LABELS[last] ?? humanize(last);
}

/** The field name a path is about (list entries belong to their list), for the pattern hints. */
const fieldName = (path: string) =>
  path
    .split('.')
    .filter((s) => !/^\d+$/.test(s))
    .at(-1) ?? '';

function problemText(error: AjvError, path: string): string {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return 'this is required';
    case 'additionalProperties':
      return 'this request does not accept this field; remove it';
    case 'format':
      return FORMAT_HINTS[String(p.format)] ?? `enter a valid ${String(p.format)}`;
    case 'minLength':
      return p.limit === 1
        ? 'enter a value; it cannot be empty'
        : `use at least ${plural(p.limit, 'character', 'characters')}`;
    case 'maxLength':
      return `use at most ${plural(p.limit, 'character', 'characters')}`;
    case 'pattern':
      return PATTERN_HINTS[fieldName(path)] ?? 'this value is not in the expected form';
    case 'enum':
      return `choose one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${String(p.allowedValue)}`;
    case 'type':
      return TYPE_HINTS[String(p.type).split(',')[0] ?? ''] ?? 'this value has the wrong type';
    case 'minItems':
      return `add at least ${plural(p.limit, 'entry', 'entries')}`;
    case 'maxItems':
      return `use at most ${plural(p.limit, 'entry', 'entries')}`;
    case 'uniqueItems':
      return `remove the repeated entry (entries ${Math.min(Number(p.i), Number(p.j)) + 1} and ${Math.max(Number(p.i), Number(p.j)) + 1} are the same)`;
    case 'minimum':
      return `enter a number of at least ${String(p.limit)}`;
    case 'maximum':
      return `enter a number of at most ${String(p.limit)}`;
    case 'anyOf':
    case 'oneOf':
      return 'this does not match any accepted form';
    default:
      return 'this value is not accepted';
  }
}

export const sentence = (text: string) =>
  `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}${text.endsWith('.') ? '' : '.'}`;

/**
 * A value that fits none of a union's forms (`{}` or null) gets an error per form plus one for the union; the first
 * form's problems say what to fix (`Reason: ... remove it`), the rest only repeat that it did not fit.
 */
function firstBranch(errors: AjvError[]): AjvError[] {
  const kept = errors.filter(
    (e) => !/\/(anyOf|oneOf)\/[1-9]/.test(e.schemaPath ?? '') && e.keyword !== 'anyOf' && e.keyword !== 'oneOf',
  );
  return kept.length > 0 ? kept : errors;
}

// The names Gatehouse gives its fields. A field name the client made up is named back only when it looks like one,
// so a path or description never carries markup, a long string or anything else a client sent that is not a name.
const PLAIN_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const plainName = (name: unknown) => (typeof name === 'string' && PLAIN_NAME.test(name) ? name : '?');

/** A JSON pointer into the request (its keys may be the client's own, e.g. in a record) as a dotted path. */
const dotted = (instancePath: string) =>
  instancePath
    .split('/')
    .slice(1)
    .map((segment) => `.${plainName(segment.replace(/~1/g, '/').replace(/~0/g, '~'))}`)
    .join('');

/** One problem per ajv error, its path machine-readable and its text a sentence; no value is ever quoted. */
export function fieldsFromValidation(context: string | undefined, errors: AjvError[]): FieldProblem[] {
  return firstBranch(errors).map((e) => {
    const base = `${context ?? 'body'}${dotted(e.instancePath)}`;
    let path = base;
    if (e.keyword === 'additionalProperties') path = `${base}.${plainName(e.params.additionalProperty)}`;
    if (e.keyword === 'required') path = `${base}.${plainName(e.params.missingProperty)}`;
    return { path, problem: sentence(problemText(e, path)) };
  });
}

/** `Email address: enter an address like name@example.org.`: a field problem with its label, for the description. */
export function describeField({ path, problem }: FieldProblem): string {
  const label = fieldLabel(path);
  return `${label}: ${problem[0]?.toLowerCase() ?? ''}${problem.slice(1)}`;
}

/** The envelope's description for a list of field problems: each, with its label, once. */
export function describeFields(fields: FieldProblem[]): string | undefined {
  if (fields.length === 0) return undefined;
  return [...new Set(fields.map(describeField))].join(' ');
}

/**
 * 400 invalid_request for problems a rule found after the schema passed (an http redirect URI, an unknown scope):
 * each problem a sentence, the description each with its field's label.
 */
export function invalidFields(problems: FieldProblem[]): InvalidRequest {
  const fields = problems.map(({ path, problem }) => ({ path, problem: sentence(problem) }));
  return new InvalidRequest(describeFields(fields), { fields });
}
