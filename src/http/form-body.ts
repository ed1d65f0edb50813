// application/x-www-form-urlencoded bodies for the OAuth endpoints. RFC 6749 §3.1/§3.2: a parameter sent more
// than once makes the request invalid, so a repeated name is refused instead of silently taking one value.
import { InvalidRequest } from './errors.ts';

export function parseFormBody(body: string): Record<string, string> {
  const result: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(result, name)) throw new InvalidRequest(`Parameter ${name} is included more than once`);
    result[name] = value;
  }
  return { ...result };
}
