// `gatehouse export [--output FILE]` and `gatehouse import <FILE|-> [--dry-run] [--json]`: see
// src/operations/registry-export.ts and registry-import.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { OperationRefused } from '../operations/errors.ts';
import { exportRegistry } from '../operations/registry-export.ts';
import { importRegistry } from '../operations/registry-import.ts';
import { type Command, parseFlags, UsageError } from './args.ts';
import { CONNECTION_FLAGS, type ConnectionArgs, withOperator } from './operator-session.ts';

export interface ExportArgs extends ConnectionArgs {
  output: string | undefined;
}

export function parseExportArgs(args: string[]): ExportArgs {
  const { values, positionals } = parseFlags(args, { ...CONNECTION_FLAGS, output: { type: 'string', short: 'o' } });
  if (positionals.length > 0) throw new UsageError('Usage: gatehouse export [--output FILE] [--config FILE]');
  return { configPath: values.config, databaseUrl: values['database-url'], output: values.output };
}

export async function runExport(options: ExportArgs): Promise<number> {
  const document = await withOperator(options, (deps) => exportRegistry(deps));
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (!options.output) process.stdout.write(text);
  else {
    writeFileSync(options.output, text);
    const { applications, resources, clients } = document;
    process.stdout.write(
      `Exported ${applications.length} applications, ${resources.length} resources and ${clients.length} clients (no secrets) to ${options.output}\n`,
    );
  }
  return 0;
}

export interface ImportArgs extends ConnectionArgs {
  file: string;
  dryRun: boolean;
  json: boolean;
}

export function parseImportArgs(args: string[]): ImportArgs {
  const { values, positionals } = parseFlags(args, {
    ...CONNECTION_FLAGS,
    'dry-run': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  });
  const [file] = positionals;
  if (!file || positionals.length !== 1)
    throw new UsageError('Usage: gatehouse import <FILE|-> [--dry-run] [--json] [--config FILE]');
  return {
    configPath: values.config,
    databaseUrl: values['database-url'],
    file,
    dryRun: values['dry-run'] === true,
    json: values.json === true,
  };
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

export async function runImport(options: ImportArgs): Promise<number> {
  const document = readDocument(options.file);
  const report = await withOperator(options, (deps, actor) =>
    importRegistry(deps, actor, document, { dryRun: options.dryRun }),
  );
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ dry_run: options.dryRun, ...report }, null, 2)}\n`);
    return 0;
  }
  const verb = options.dryRun ? 'Would create' : 'Created';
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

export const exportCommand: Command = {
  summary: 'export [--output FILE]: applications, resources and clients as JSON (never a secret).',
  run: async (args) => runExport(parseExportArgs(args)),
};

export const importCommand: Command = {
  summary:
    'import <FILE|->: create what an export lists; re-runnable; conflicts refuse it all; new secrets shown once.',
  run: async (args) => runImport(parseImportArgs(args)),
};
