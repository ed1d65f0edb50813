import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useAction } from '../../hooks/use-api.ts';
import type { ChainStatus } from './audit-types.ts';
import { CHAIN, counted, RECORD } from './count-words.ts';
import { StatusBadge } from './StatusBadge.tsx';

/** The audit chains' integrity, checked on request: the check reads every record, so it is not run on each visit. */
export function ChainPanel() {
  const action = useAction();
  const [result, setResult] = useState<ChainStatus | null>(null);

  const verify = async () => {
    const checked = await action.run(() => api<ChainStatus>('GET', '/admin/audit/verify'));
    if (checked) setResult(checked);
  };

  return (
    <section class="panel" aria-labelledby="chain-heading">
      <h2 id="chain-heading">Chain verification</h2>
      <p class="hint">
        Recomputes every record's HMAC and checks that none was changed or removed, as{' '}
        <code>gatehouse audit verify</code> does. It reads the whole log, so it takes longer as the log grows.
      </p>
      <button type="button" onClick={verify} disabled={action.busy}>
        {action.busy ? 'Verifying…' : 'Verify the chain'}
      </button>
      <ErrorNotice error={action.error} />
      <div aria-live="polite">
        {result?.ok && (
          <p data-testid="chain-result">
            <StatusBadge status="ok" label="Verified" /> {counted(result.records, RECORD)} in{' '}
            {counted(result.chains, CHAIN)}, none changed or missing. Checked{' '}
            {new Date(result.checked_at).toLocaleString()}.
          </p>
        )}
        {result && !result.ok && (
          <div class="notice notice-error" data-testid="chain-result">
            <p>
              <StatusBadge status="fail" label="Broken" /> {result.breaks.length} of {counted(result.chains, CHAIN)}{' '}
              fail verification ({counted(result.records, RECORD)} checked).
            </p>
            {result.first_broken && (
              <p>
                First broken record: chain <code>{result.first_broken.chain}</code>, record {result.first_broken.seq}
                {result.first_broken.record_id && (
                  <>
                    {' '}
                    (ID <code>{result.first_broken.record_id}</code>)
                  </>
                )}
                : {result.first_broken.reason}.
              </p>
            )}
          </div>
        )}
        {result && result.pending_records > 0 && (
          <p class="hint" data-testid="chain-pending">
            {counted(result.pending_records, RECORD)} of committed changes{' '}
            {result.pending_records === 1 ? 'waits' : 'wait'} to join a chain (oldest from{' '}
            {new Date(result.oldest_pending_at ?? result.checked_at).toLocaleString()}); until they do, no HMAC protects
            them. A server chains them at its next change, its start or its hourly housekeeping.
          </p>
        )}
      </div>
    </section>
  );
}
