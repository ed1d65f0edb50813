interface FieldProps {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onValue: (value: string) => void;
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
  inputMode?: 'text' | 'numeric' | 'email';
  pattern?: string;
  maxLength?: number;
  required?: boolean;
  autoFocus?: boolean;
}

/** A labelled input; the hint is tied to it with aria-describedby. */
export function Field({ id, label, hint, value, onValue, type = 'text', ...input }: FieldProps) {
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
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...input}
      />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}
