import { useState } from 'preact/hooks';
import { useOutcomeFocus } from '../../hooks/use-outcome-focus.ts';

export type PanelMode = 'edit' | 'delete';

/**
 * A console list page's one open panel (edit or delete confirmation for one record) and the status message of the
 * last change. `finished` closes the panel, reloads the list and moves focus to the page's notices (`noticesRef`);
 * `cancel` returns focus to the row button that opened the panel (ids `edit-<id>` / `delete-<id>`).
 */
export function useRecordPanel<T>(idOf: (record: T) => string, reload: () => void) {
  const outcome = useOutcomeFocus<HTMLDivElement>();
  const [panel, setPanel] = useState<{ mode: PanelMode; record: T } | null>(null);
  const [done, setDone] = useState('');
  return {
    panel,
    done,
    noticesRef: outcome.ref,
    settled: outcome.settled,
    open: (mode: PanelMode, record: T) => setPanel({ mode, record }),
    cancel: () => {
      if (panel) document.getElementById(`${panel.mode}-${idOf(panel.record)}`)?.focus();
      setPanel(null);
    },
    finished: (message: string) => {
      setPanel(null);
      setDone(message);
      reload();
      outcome.settled();
    },
    clearDone: () => setDone(''),
  };
}
