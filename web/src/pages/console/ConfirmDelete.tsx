import { useEffect, useRef } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { useOutcomeFocus } from '../../hooks/use-outcome-focus.ts';

/**
 * The confirmation step before a delete: names the record and what goes with it, and takes focus when it opens.
 * A refusal (409 application_in_use, resource_in_use) stays here with its message and request id, focused.
 */
export function ConfirmDelete({
  noun,
  name,
  path,
  consequence,
  onDeleted,
  onCancel,
}: {
  noun: string;
  name: string;
  path: string;
  consequence: string;
  onDeleted: () => void;
  onCancel: () => void;
}) {
  const action = useAction();
  const outcome = useOutcomeFocus<HTMLElement>();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  const remove = async () => {
    const deleted = await action.run(async () => {
      await api('DELETE', path);
      return true;
    });
    if (deleted) onDeleted();
    else outcome.settled();
  };

  return (
    <section class="confirm" aria-labelledby="confirm-delete" ref={outcome.ref}>
      <h2 id="confirm-delete" tabIndex={-1} ref={heading}>
        Delete {noun} {name}?
      </h2>
      <p>{consequence}</p>
      <ErrorNotice error={action.error} />
      <div class="actions">
        <button type="button" class="danger" onClick={() => void remove()} disabled={action.busy}>
          Delete {noun}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
