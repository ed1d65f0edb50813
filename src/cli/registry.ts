// `gatehouse export [--output FILE]` and `gatehouse import <FILE|-> [--dry-run] [--json]`: see
// src/operations/registry-export.ts and registry-import.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { OperationRefused } from '../operations/errors.ts';
import { exportRegistry } from '../operations/registry-export.ts';
import { importRegistry } from '../operations/registry-import.ts';
import type { CommandInput, OptionValues } from './args.ts';
import { connectionOf, withOperator } from './operator-session.ts';
import type { EXPORT_OPTIONS, IMPORT_OPTIONS } from './options.ts';

export async function exportCommand({ values }: CommandInput<OptionValues<typeof EXPORT_OPTIONS>>): Promise<number> {
  const document = await withOperator(connectionOf(values), (deps) => exportRegistry(deps));
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (!values.output) process.stdout.write(text);
  else {
    writeFileSync(values.output, text);
    const { applications, resources, clients } = document;
    process.stdout.write(
      `Exported ${applications.length} applications, ${resources.length} resources and ${clients.length} clients (no secrets) to ${values.output}\n`,
    );
  }
  return 0;
}

function readDocument(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new OperationRefused(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new OperationRefused(`${file} is not JSON: ${(error as Error).message}`);
  }
}

export async function importCommand({
  values,
  positionals: [file = ''],
}: CommandInput<OptionValues<typeof IMPORT_OPTIONS>>): Promise<number> {
  const dryRun = values['dry-run'] === true;
  const document = readDocument(file);
  const report = await withOperator(connectionOf(values), (deps, actor) =>
    importRegistry(deps, actor, document, { dryRun }),
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ dry_run: dryRun, ...report }, null, 2)}\n`);
    return 0;
  }
  const verb = dryRun ? 'Would create' : 'Created';
  const lines = [
    ...report.created.map((what) => `${verb} ${what}`),
    ...report.unchanged.map((what) => `Unchanged ${what}`),
  ];
  if (report.secrets.length > 0)
    lines.push(
      'New client secrets (shown once, not stored in clear; give each to its application):',
      ...report.secrets.map((s) => `  ${s.client_id}  ${s.client_secret}`),
    );
  if (lines.length === 0) lines.push('The document lists nothing to import.');
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
