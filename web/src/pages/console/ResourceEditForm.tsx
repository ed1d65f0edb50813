import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { useOutcomeFocus } from '../../hooks/use-outcome-focus.ts';
import { EditHeading } from './EditHeading.tsx';
import { problemFor } from './field-problems.ts';
import { FormButtons } from './RowActions.tsx';
import { type Resource, splitList } from './types.ts';

/** Renames a resource or changes its scopes; the audience is its identity and stays. */
export function ResourceEditForm({
  resource,
  onSaved,
  onCancel,
}: {
  resource: Resource;
  onSaved: (resource: Resource) => void;
  onCancel: () => void;
}) {
  const action = useAction();
  const outcome = useOutcomeFocus<HTMLFormElement>();
  const [name, setName] = useState(resource.name);
  const [scopes, setScopes] = useState(resource.scopes.join(' '));

  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await action.run(() =>
      api<Resource>('PATCH', `/admin/resources/${encodeURIComponent(resource.id)}`, {
        name,
        scopes: splitList(scopes),
      }),
    );
    if (saved) onSaved(saved);
    else outcome.settled();
  };

  return (
    <form onSubmit={submit} aria-labelledby="edit-resource" ref={outcome.ref} noValidate>
      <EditHeading id="edit-resource" text={`Edit resource ${resource.audience}`} />
      <ErrorNotice error={action.error} shownFields={['name', 'scopes']} />
      <Field
        id="edit-resource-name"
        label="Name"
        required
        value={name}
        onValue={setName}
        error={problemFor(action.error, 'name')}
      />
      <Field
        id="edit-resource-scopes"
        label="Scopes"
        hint="Separated by spaces, e.g. billing:read billing:write."
        required
        value={scopes}
        onValue={setScopes}
        error={problemFor(action.error, 'scopes', splitList(scopes))}
      />
      <FormButtons save="Save resource" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
