import { describedBy, FieldError } from './Field.tsx';

/** A labelled textarea for a list typed one entry per line (redirect URIs), with its hint and error. */
export function ListField({
  id,
  label,
  hint,
  error,
  value,
  onValue,
  required,
}: {
  id: string;
  label: string;
  hint: string;
  error?: string;
  value: string;
  onValue: (value: string) => void;
  required?: boolean;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        name={id}
        rows={3}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-describedby={describedBy(id, hint, error)}
        aria-invalid={error ? true : undefined}
        required={required}
      />
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <FieldError id={id} error={error} />
    </div>
  );
}
