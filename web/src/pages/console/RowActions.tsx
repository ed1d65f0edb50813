import type { ComponentChildren } from 'preact';

/**
 * The action cell of a console table row: Edit, any extra actions (children), then Delete. Each button names the
 * record (`label`), so a screen reader's button list is unambiguous; the ids let focus return to the button that
 * opened a panel.
 */
export function RowActions({
  id,
  label,
  onEdit,
  onDelete,
  children,
}: {
  id: string;
  label: string;
  onEdit: () => void;
  onDelete: () => void;
  children?: ComponentChildren;
}) {
  return (
    <td>
      <div class="actions">
        <button type="button" id={`edit-${id}`} aria-label={`Edit ${label}`} onClick={onEdit}>
          Edit
        </button>
        {children}
        <button type="button" class="secondary" id={`delete-${id}`} aria-label={`Delete ${label}`} onClick={onDelete}>
          Delete
        </button>
      </div>
    </td>
  );
}

/** The last, unlabelled header cell above RowActions. */
export function ActionsHeader() {
  return (
    <th scope="col">
      <span class="visually-hidden">Actions</span>
    </th>
  );
}

/** Save and Cancel under an edit form. */
export function FormButtons({ save, busy, onCancel }: { save: string; busy: boolean; onCancel: () => void }) {
  return (
    <div class="actions">
      <button type="submit" disabled={busy}>
        {save}
      </button>
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
