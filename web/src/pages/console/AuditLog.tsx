import { useState } from 'preact/hooks';
import { EmptyState } from '../../components/EmptyState.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useCursorPages } from '../../hooks/use-cursor-pages.ts';
import './audit.css';
import { AuditFilters } from './AuditFilters.tsx';
import { AuditTable } from './AuditTable.tsx';
import { type AuditRecord, auditQuery, type AuditFilters as Filters, NO_FILTERS } from './audit-types.ts';
import { ChainPanel } from './ChainPanel.tsx';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { counted, RECORD } from './count-words.ts';

/** Records per page: a screen or two on a phone, where each record is a card. */
export const PAGE_SIZE = 25;

/** The records first, their filters on one line above them, one page at a time; the chain check below. */
export function AuditLog() {
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const path = auditQuery(applied);
  const pages = useCursorPages<AuditRecord>(path, 'records', PAGE_SIZE);
  // Applying filters starts from the newest page; applying the same ones again reloads (records keep arriving).
  const apply = (filters: Filters) => {
    setApplied(filters);
    pages.first();
  };
  const records = pages.items;
  const caption = `Page ${pages.page}, ${counted(records?.length ?? 0, RECORD)}, newest first`;

  return (
    <ConsoleLayout section="audit" title="Audit log" access={pages.error}>
      <AuditFilters applied={applied} onApply={apply} />
      <LoadState loading={pages.loading} error={pages.error} />
      {records?.length === 0 && (
        <EmptyState>
          {path === '/admin/audit'
            ? 'Nothing is recorded yet. Sign-ins and every administrative change appear here.'
            : 'No record matches these filters. Clear them to see the whole log.'}
        </EmptyState>
      )}
      {!!records?.length && <AuditTable records={records} caption={caption} />}
      {records && (pages.page > 1 || pages.hasOlder) && (
        <nav class="pager" aria-label="Audit log pages">
          <button type="button" class="secondary" onClick={pages.newer} disabled={pages.page === 1}>
            Newer records
          </button>
          <span aria-live="polite" data-testid="audit-page">
            Page {pages.page}
          </span>
          <button type="button" class="secondary" onClick={pages.older} disabled={!pages.hasOlder}>
            Older records
          </button>
        </nav>
      )}

      <ChainPanel />
    </ConsoleLayout>
  );
}
