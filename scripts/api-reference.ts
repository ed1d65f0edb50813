// docs/api-reference.md: the contract (api/openapi.json) rendered for reading, one line per operation and its answers.
// Generated with the document by `npm run openapi`, and held to it by test/openapi/contract.test.ts.

interface Reference {
  $ref: string;
}
interface Response {
  description?: string;
  content?: Record<string, unknown>;
}
interface Operation {
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, Response | Reference>;
}
interface Document {
  info: { title: string; version: string };
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation>>;
  components?: { responses?: Record<string, Response> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options'];

/** A response as written or as the shared answer it points at. */
function resolve(document: Document, response: Response | Reference): Response {
  if (!('$ref' in response)) return response;
  const name = response.$ref.split('/').at(-1) ?? '';
  return document.components?.responses?.[name] ?? {};
}

/** Table cells hold one line; a pipe would end the cell. */
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function security(document: Document, operation: Operation): string {
  const requirements = operation.security ?? document.security ?? [];
  if (requirements.length === 0) return 'none';
  return requirements.map((r) => Object.keys(r).join(' + ') || 'none').join(' or ');
}

function answers(document: Document, operation: Operation): string {
  return Object.entries(operation.responses ?? {})
    .map(([status, response]) => {
      const { description = '' } = resolve(document, response);
      // Error answers name their codes ("Error: a, b."); a success answer keeps its own words.
      return `**${status}** ${description}`;
    })
    .join('<br>');
}

export function renderApiReference(document: Document): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths))
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'other';
      const body = Object.keys(operation.requestBody?.content ?? {}).join(', ') || '–';
      const row = `| \`${method.toUpperCase()} ${path}\` | ${cell(operation.summary ?? '')} | ${security(document, operation)} | ${body} | ${cell(answers(document, operation))} |`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), row]);
    }
  const sections = [...byTag.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tag, rows]) =>
      [
        `## ${tag}`,
        '',
        '| Operation | What it does | Authentication | Request body | Answers |',
        '| --- | --- | --- | --- | --- |',
        ...rows,
      ].join('\n'),
    );
  return [
    '# HTTP API reference',
    '',
    `Generated from [\`api/openapi.json\`](../api/openapi.json) (${document.info.title} ${document.info.version}) by`,
    '`npm run openapi`; do not edit by hand. docs/api.md says what the contract covers, and docs/errors.md explains',
    'every error code. The schemas of each body are in the JSON document.',
    '',
    ...sections.flatMap((section) => [section, '']),
  ].join('\n');
}
