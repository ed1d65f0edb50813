// Renders docs/configuration.md from the schema's defaults and descriptions, so the reference cannot drift.
import { ConfigSchema } from './schema.ts';

interface SchemaNode {
  type?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  anyOf?: SchemaNode[];
  const?: unknown;
  properties?: Record<string, SchemaNode>;
  /** A table of named tables (`[ldap.<id>]`): one value schema under the id pattern. */
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  minimum?: number;
  maximum?: number;
}

function typeOf(node: SchemaNode): string {
  if (node.anyOf) return node.anyOf.map(typeOf).join(' or ');
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  if (node.type === 'array') return `array of ${node.items ? typeOf(node.items) : 'values'}`;
  const range =
    node.minimum !== undefined || node.maximum !== undefined ? ` (${node.minimum ?? ''}–${node.maximum ?? ''})` : '';
  return `${node.type ?? 'value'}${range}`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function walk(name: string, node: SchemaNode, out: string[], heading: string): void {
  const scalars = Object.entries(node.properties ?? {}).filter(
    ([, child]) => child.type !== 'object' && !(child.type === 'array' && child.items?.type === 'object'),
  );
  const tables = Object.entries(node.properties ?? {}).filter(
    ([, child]) => child.type === 'object' || (child.type === 'array' && child.items?.type === 'object'),
  );
  if (name !== '') {
    out.push(`${heading} \`[${name}]\``, '', node.description ?? '', '');
    if (scalars.length > 0) out.push('| key | type | default | description |', '|---|---|---|---|');
  }
  for (const [key, child] of scalars)
    out.push(
      `| \`${key}\` | ${cell(typeOf(child))} | \`${cell(JSON.stringify(child.default ?? null))}\` | ${cell(child.description ?? '')} |`,
    );
  if (scalars.length > 0) out.push('');
  for (const child of Object.values(node.patternProperties ?? {}))
    walk(`${name}.<id>`, { ...child, description: `One entry of \`[${name}]\`.` }, out, `${heading}#`);
  for (const [key, child] of tables) {
    const path = name === '' ? key : `${name}.${key}`;
    if (child.type === 'array' && child.items)
      walk(`[${path}]`, { ...child.items, description: child.description }, out, `${heading}#`);
    else walk(path, child, out, name === '' ? '##' : `${heading}#`);
  }
}

export function renderConfigurationDoc(): string {
  const out = [
    '# Configuration reference',
    '',
    'Generated from `src/config/schema.ts` by `npm run docs`; do not edit by hand (a test fails when it is stale).',
    '',
    'Gatehouse reads TOML from `--config FILE`, else `$GATEHOUSE_CONFIG`, else `/etc/gatehouse/gatehouse.toml`, else',
    "the development instance's `./.gatehouse/gatehouse.toml`, which its first start (`npm start`) writes with the",
    'values it runs on and which is read and checked like any other file; its `server.issuer`, when unset, follows',
    '`server.listen` (`http://localhost:<port>`). Unknown keys are errors. `GATEHOUSE_ISSUER`, `GATEHOUSE_LISTEN`',
    'and `DATABASE_URL` override `server.issuer`, `server.listen` and `database.url`. Relative paths resolve against',
    "the config file's directory. Placeholder credentials (`0`, `test`, `dummy`, `example`, `placeholder`) defer a",
    'provider or delivery method: it is reported, not used.',
    '',
  ];
  walk('', ConfigSchema as unknown as SchemaNode, out, '##');
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
