import type { Environment } from './types.ts';

/** The environment picker shared by the create and edit forms. */
export function EnvironmentSelect({
  id,
  value,
  onValue,
  hint,
}: {
  id: string;
  value: Environment;
  onValue: (value: Environment) => void;
  hint?: string;
}) {
  return (
    <div class="field">
      <label for={id}>Environment</label>
      <select
        id={id}
        value={value}
        onChange={(e) => onValue(e.currentTarget.value as Environment)}
        aria-describedby={hint ? `${id}-hint` : undefined}
      >
        <option value="production">production</option>
        <option value="staging">staging</option>
        <option value="development">development</option>
      </select>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}
