// `npm run bench [name ...]`: runs the scenarios in bench/scenarios/ (all, or those named) and writes
// bench/REPORT.md with medians and ratios against references measured in the same run.
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { installedAllocator } from './helpers/server.ts';
import { type BenchContext, median, type Scenario, type ScenarioResult } from './lib.ts';

const dir = fileURLToPath(new URL('./scenarios/', import.meta.url));
const wanted = process.argv.slice(2);
const context: BenchContext = {
  rounds: Number(process.env.BENCH_ROUNDS ?? 5),
  roundMs: Number(process.env.BENCH_ROUND_MS ?? 3000),
  // Five seconds: after two, V8 was still compiling the token path on its worker threads (about 60 µs of CPU per
  // token in the first measured second, against 10 µs after six), so the first round measured the compiler too.
  warmUpMs: Number(process.env.BENCH_WARM_UP_MS ?? 5000),
};

if (!process.env.DATABASE_URL) {
  process.stderr.write(
    'Set DATABASE_URL to a PostgreSQL maintenance database, e.g. postgres://postgres@127.0.0.1:5432/postgres\n',
  );
  process.exit(64);
}

const scenarios: Scenario[] = [];
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort()) {
  const { scenario } = (await import(new URL(`./scenarios/${file}`, import.meta.url).href)) as { scenario: Scenario };
  if (wanted.length === 0 || wanted.includes(scenario.name)) scenarios.push(scenario);
}

const format = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2));
const lines = [
  '# Benchmark report',
  '',
  `Run ${new Date().toISOString()} on ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version};`,
  `${context.rounds} rounds of ${context.roundMs} ms each after a ${context.warmUpMs} ms warm-up of every load; medians shown. Reproduce: \`DATABASE_URL=... npm run bench\`.`,
  `Gatehouse servers allocate with ${installedAllocator().name}, as the installed service would here.`,
  '',
];
let failed = 0;
for (const scenario of scenarios) {
  process.stderr.write(`bench: ${scenario.name}…\n`);
  const result: ScenarioResult = await scenario.run(context);
  lines.push(
    `## ${scenario.name}`,
    '',
    scenario.description,
    '',
    '| metric | median | unit | samples |',
    '|---|---|---|---|',
  );
  for (const m of result.metrics)
    lines.push(`| ${m.name} | ${format(median(m.samples))} | ${m.unit} | ${m.samples.map(format).join(', ')} |`);
  lines.push('', '| ratio | value | target | met |', '|---|---|---|---|');
  for (const r of result.ratios) {
    const target =
      r.target?.atLeast !== undefined
        ? `≥ ${r.target.atLeast}`
        : r.target?.atMost !== undefined
          ? `≤ ${r.target.atMost}`
          : '';
    const met =
      (r.target?.atLeast === undefined || r.value >= r.target.atLeast) &&
      (r.target?.atMost === undefined || r.value <= r.target.atMost);
    if (!met) failed += 1;
    lines.push(`| ${r.name} | ${format(r.value)} | ${target} | ${target === '' ? '' : met ? 'yes' : 'NO'} |`);
  }
  for (const note of result.notes ?? []) lines.push('', note);
  lines.push('');
}
const report = `${lines.join('\n')}\n`;
writeFileSync(fileURLToPath(new URL('./REPORT.md', import.meta.url)), report);
process.stdout.write(report);
if (failed > 0) process.stderr.write(`bench: ${failed} target(s) not met\n`);
