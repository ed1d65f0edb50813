interface FieldProps {
  id: string;
  label: string;
  hint?: string;
  /** A problem the server reported for this field: shown under it and announced with the field. */
  error?: string;
  value: string;
  onValue: (value: string) => void;
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
  inputMode?: 'text' | 'numeric' | 'email';
  pattern?: string;
  maxLength?: number;
  required?: boolean;
  autoFocus?: boolean;
  /** The id of a <datalist> of suggestions. */
  list?: string;
}

/** The ids an input's aria-describedby names: its hint and its error, when present. */
export const describedBy = (id: string, hint?: string, error?: string) =>
  [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;

/** A field's error line; the input it belongs to carries aria-invalid and points here. */
export function FieldError({ id, error }: { id: string; error?: string }) {
  if (!error) return null;
  return (
    <p class="field-error" id={`${id}-error`}>
      {error}
    </p>
  );
}

/** A labelled input; the hint and any error are tied to it with aria-describedby. */
export function Field({ id, label, hint, error, value, onValue, type = 'text', ...input }: FieldProps) {
  // Preact types <input> as a union discriminated by `type`; one element type for all three keeps it simple.
  const kind = type as 'text';
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={id}
        type={kind}
        value={value}
        onInput={(event) => onValue(event.currentTarget.value)}
        aria-describedby={describedBy(id, hint, error)}
        aria-invalid={error ? true : undefined}
        {...input}
      />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <FieldError id={id} error={error} />
    </div>
  );
}
