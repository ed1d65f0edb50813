// The database half of a backup: every table of Gatehouse's schema copied out with COPY inside ONE read-only
// REPEATABLE READ transaction, so all tables come from the same snapshot (docs/decisions.md "Backup format"), and
// copied back in with COPY, parents before children so every foreign key finds its row.
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Executor, Sql, Transaction } from '../db/pool.ts';

export interface TableCopy {
  table: string;
  rows: number;
}

export interface SequenceValue {
  sequence: string;
  lastValue: string;
  isCalled: boolean;
}

export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

export interface Snapshot {
  tables: TableCopy[];
  sequences: SequenceValue[];
  migrations: AppliedMigration[];
}

/**
 * Tables whose rows a trigger derives from another table's rows: a backup leaves them out, and loading that table on
 * restore fills them again. Copying them too would make the restore insert their rows twice.
 */
export const DERIVED_TABLES: ReadonlySet<string> = new Set([
  'identity_name_words', // from identities.display_name (migration 0037)
  // from audit_events (migration 0045): loading the log counts it again
  'audit_stats_hours',
  'audit_active_hours',
  'audit_active_days',
]);

/** Tables of the schema the connection works in (search_path's first), by name. */
export async function listTables(sql: Executor): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    select tablename as name from pg_tables where schemaname = current_schema() order by tablename`;
  return rows.map((r) => r.name);
}

/** Counts lines as they pass: COPY's text format writes one line per row (newlines in values are escaped). */
function lineCounter() {
  let lines = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (const byte of chunk) if (byte === 0x0a) lines++;
      done(null, chunk);
    },
  });
  return { stream, lines: () => lines };
}

/**
 * Writes each table to `fileFor(table)` from one snapshot and returns what it wrote. `onTable` is called after each
 * table (progress). Sequence positions are read in the same transaction: PostgreSQL does not roll sequences back, so
 * the value read is at least every id the snapshot holds.
 */
export async function copyOut(
  sql: Sql,
  fileFor: (table: string) => string,
  onTable: (done: TableCopy, index: number, total: number) => void,
): Promise<Snapshot> {
  return (await sql.begin('isolation level repeatable read read only', async (tx) => {
    const tables = (await listTables(tx)).filter((table) => !DERIVED_TABLES.has(table));
    const migrations = await tx<AppliedMigration[]>`
      select version, name, checksum from schema_migrations order by version`;
    const copied: TableCopy[] = [];
    for (const [index, table] of tables.entries()) {
      const counter = lineCounter();
      const source = await tx`copy ${tx(table)} to stdout`.readable();
      await pipeline(source, counter.stream, createWriteStream(fileFor(table), { mode: 0o600 }));
      const done = { table, rows: counter.lines() };
      copied.push(done);
      onTable(done, index + 1, tables.length);
    }
    const sequences = await tx<SequenceValue[]>`
      select sequencename as sequence, last_value::text as "lastValue", last_value is not null as "isCalled"
      from pg_sequences where schemaname = current_schema() order by sequencename`;
    return { tables: copied, sequences, migrations };
  })) as Snapshot;
}

/**
 * Orders tables so each comes after every table its foreign keys point to (a table referring to itself is fine:
 * COPY checks foreign keys at the end of the statement). A cycle between tables cannot be loaded this way and is
 * reported rather than loaded half.
 */
export async function loadOrder(tx: Executor, tables: string[]): Promise<string[]> {
  const edges = await tx<{ child: string; parent: string }[]>`
    select c.relname as child, p.relname as parent
    from pg_constraint k
    join pg_class c on c.oid = k.conrelid
    join pg_class p on p.oid = k.confrelid
    join pg_namespace n on n.oid = c.relnamespace
    where k.contype = 'f' and n.nspname = current_schema() and c.oid <> p.oid`;
  const parents = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const e of edges) parents.get(e.child)?.add(e.parent);
  const ordered: string[] = [];
  const placed = new Set<string>();
  while (ordered.length < tables.length) {
    const ready = tables.filter((t) => !placed.has(t) && [...(parents.get(t) ?? [])].every((p) => placed.has(p)));
    if (ready.length === 0)
      throw new Error(`foreign keys form a cycle among ${tables.filter((t) => !placed.has(t)).join(', ')}`);
    for (const t of ready) {
      placed.add(t);
      ordered.push(t);
    }
  }
  return ordered;
}

/** Loads one table's COPY file into the (empty) table; returns the rows loaded. */
export async function copyIn(tx: Transaction, table: string, file: string): Promise<number> {
  const counter = lineCounter();
  const target = await tx`copy ${tx(table)} from stdin`.writable();
  await pipeline(createReadStream(file), counter.stream, target);
  return counter.lines();
}

/** Puts each sequence back where the snapshot had it, so new rows never reuse a restored id. */
export async function restoreSequences(tx: Transaction, sequences: SequenceValue[]): Promise<void> {
  for (const s of sequences)
    if (s.isCalled) await tx`select setval(format('%I', ${s.sequence}::text)::regclass, ${s.lastValue}::bigint, true)`;
}
