// Renders docs/errors.md from the error catalogue; the errors test checks the file both ways.
import { errorCatalogue } from './error-catalogue.ts';

export function renderErrorsDoc(): string {
  const rows = Object.entries(errorCatalogue).map(
    ([code, { status, description }]) => `| \`${code}\` | ${status} | ${description} |`,
  );
  return [
    '# Error codes',
    '',
    'Generated from `src/http/error-catalogue.ts` by `npm run docs`; do not edit by hand.',
    '',
    'Every error response has the same JSON envelope:',
    '',
    '```json',
    '{"error": "invalid_request", "error_description": "client-safe text", "request_id": "…"}',
    '```',
    '',
    'Validation errors may add `"fields": [{"path": "body.email", "problem": "This is required."}]`: `path` says',
    'where in the request, `problem` is a sentence to show beside that field, and `error_description` repeats each',
    "problem once with the field's label (`Email address: this is required.`). The `X-Request-Id`",
    'header carries the same id; quote it when asking an operator to find the request in the logs. Branch on `error`',
    'and the HTTP status, never on `error_description`. OAuth endpoints use the RFC 6749/6750/7009/7662 codes.',
    '',
    '| code | status | default description |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
