// Every figure of the overview's charts as a table. Screen readers always have it; sighted people open it with the
// button, so the charts stay the first thing on the page.
import { useState } from 'preact/hooks';
import { type Bucket, bucketLabel, methodName, type Stats } from './stats-types.ts';

export function StatsTable({ stats }: { stats: Stats }) {
  const [shown, setShown] = useState(false);
  const unit: Record<Bucket, string> = { hour: 'hour', day: 'day' };
  return (
    <div class="stats-table">
      <button
        type="button"
        class="secondary"
        aria-expanded={shown}
        aria-controls="stats-figures"
        onClick={() => setShown((s) => !s)}
      >
        {shown ? 'Hide the figures' : 'Show the figures as a table'}
      </button>
      <div id="stats-figures" class={shown ? undefined : 'visually-hidden'} data-testid="stats-figures">
        <table>
          <caption>Sign-ins, failed sign-ins, sign-ups and active identities per {unit[stats.bucket]} (UTC)</caption>
          <thead>
            <tr>
              <th scope="col">{stats.bucket === 'hour' ? 'Hour' : 'Day'}</th>
              <th scope="col">Sign-ins</th>
              {stats.methods.map((m) => (
                <th scope="col" key={m}>
                  {`Sign-ins: ${methodName(m)}`}
                </th>
              ))}
              <th scope="col">Failed sign-ins</th>
              <th scope="col">Sign-ups</th>
              <th scope="col">Active identities</th>
            </tr>
          </thead>
          <tbody>
            {stats.buckets.map((b) => (
              <tr key={b.start}>
                <th scope="row" data-label={stats.bucket === 'hour' ? 'Hour' : 'Day'}>
                  <time dateTime={b.start}>{bucketLabel(b.start, stats.bucket)}</time>
                </th>
                <td data-label="Sign-ins">{b.sign_ins}</td>
                {stats.methods.map((m) => (
                  <td key={m} data-label={`Sign-ins: ${methodName(m)}`}>
                    {b.sign_ins_by_method[m] ?? 0}
                  </td>
                ))}
                <td data-label="Failed sign-ins">{b.failed_sign_ins}</td>
                <td data-label="Sign-ups">{b.sign_ups}</td>
                <td data-label="Active identities">{b.active_identities}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
