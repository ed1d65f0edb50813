// The overview's "Activity" panel: sign-ins by method, failed sign-ins, sign-ups and active identities over a chosen
// range, from GET /admin/stats. Totals as text, a chart for each figure, and every number in a table.
import { useMemo, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useApi } from '../../hooks/use-api.ts';
import { BarChart, type ChartBar, type Series } from './BarChart.tsx';
import { StatsTable } from './StatsTable.tsx';
import {
  type Bucket,
  bucketLabel,
  type Figures,
  hoursAllowed,
  methodName,
  RANGES,
  type RangeId,
  type Stats,
  statsPath,
} from './stats-types.ts';

/** Okabe–Ito colours: told apart with every common colour-vision deficiency, each 3:1 or more against white. */
const METHOD_COLORS = ['#0072b2', '#d55e00', '#007a5a', '#b0468c', '#5e5e5e', '#8a5a00', '#1f2a37'];

type Single = Exclude<keyof Figures, 'sign_ins_by_method'>;

function summary(stats: Stats, key: Single, noun: string): string {
  const total = key === 'active_identities' ? stats.totals.active_identities : stats.totals[key];
  const peak = stats.buckets.reduce((best, b) => (b[key] > (best?.[key] ?? -1) ? b : best), stats.buckets[0]);
  const base = `${noun}: ${total} in the range${key === 'active_identities' ? ' (each person once)' : ''}`;
  if (!peak || peak[key] === 0) return `${base}.`;
  return `${base}; most, ${peak[key]}, in the ${stats.bucket} from ${bucketLabel(peak.start, stats.bucket)} UTC.`;
}

function Charts({ stats }: { stats: Stats }) {
  const label = (start: string) => bucketLabel(start, stats.bucket);
  const methods: Series[] = stats.methods.map((m, i) => ({
    key: m,
    label: methodName(m),
    color: METHOD_COLORS[i % METHOD_COLORS.length] ?? '#0072b2',
  }));
  const byMethod: ChartBar[] = stats.buckets.map((b) => ({ label: label(b.start), values: b.sign_ins_by_method }));
  const single = (key: Single): ChartBar[] =>
    stats.buckets.map((b) => ({ label: label(b.start), values: { [key]: b[key] } }));
  const perMethod = stats.methods.map((m) => `${methodName(m)} ${stats.totals.sign_ins_by_method[m] ?? 0}`).join(', ');
  return (
    <div class="charts">
      <BarChart
        id="sign-ins"
        title="Sign-ins by method"
        series={methods}
        bars={byMethod}
        summary={`${summary(stats, 'sign_ins', 'Sign-ins')}${perMethod ? ` By method: ${perMethod}.` : ''}`}
      />
      <BarChart
        id="failed"
        title="Failed sign-ins"
        series={[{ key: 'failed_sign_ins', label: 'Failed sign-ins', color: '#a3161b' }]}
        bars={single('failed_sign_ins')}
        summary={summary(stats, 'failed_sign_ins', 'Failed sign-ins')}
      />
      <BarChart
        id="sign-ups"
        title="Sign-ups"
        series={[{ key: 'sign_ups', label: 'Sign-ups', color: '#007a5a' }]}
        bars={single('sign_ups')}
        summary={summary(stats, 'sign_ups', 'Sign-ups')}
      />
      <BarChart
        id="active"
        title="Active identities"
        series={[{ key: 'active_identities', label: 'Active identities', color: '#0b5cad' }]}
        bars={single('active_identities')}
        summary={summary(stats, 'active_identities', 'Active identities')}
      />
    </div>
  );
}

function Totals({ totals }: { totals: Figures }) {
  const items: [string, number][] = [
    ['Sign-ins', totals.sign_ins],
    ['Failed sign-ins', totals.failed_sign_ins],
    ['Sign-ups', totals.sign_ups],
    ['Active identities', totals.active_identities],
  ];
  return (
    <dl class="stat-totals" data-testid="stat-totals">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function ActivityOverview() {
  const [range, setRange] = useState<RangeId>('30d');
  const [wanted, setWanted] = useState<Bucket>('day');
  const bucket: Bucket = hoursAllowed(range) ? wanted : 'day';
  // The path is fixed per choice: a new Date.now() on every render would refetch for ever.
  const path = useMemo(() => statsPath(range, bucket), [range, bucket]);
  const stats = useApi<Stats>(path);
  const data = stats.data;
  return (
    <section class="panel activity" aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      <div class="activity-controls">
        <div>
          <label for="activity-range">Range</label>
          <select id="activity-range" value={range} onChange={(e) => setRange(e.currentTarget.value as RangeId)}>
            {RANGES.map((r) => (
              <option key={r.id} value={r.id}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="activity-bucket">Per</label>
          <select id="activity-bucket" value={bucket} onChange={(e) => setWanted(e.currentTarget.value as Bucket)}>
            <option value="hour" disabled={!hoursAllowed(range)}>
              hour
            </option>
            <option value="day">day</option>
          </select>
        </div>
        <span class="hint">Times in UTC.</span>
      </div>
      <ErrorNotice error={stats.error} />
      {data && (
        <div aria-busy={stats.loading}>
          <Totals totals={data.totals} />
          <Charts stats={data} />
          <StatsTable stats={data} />
        </div>
      )}
      {!data && !stats.error && <p class="hint">Loading…</p>}
    </section>
  );
}
