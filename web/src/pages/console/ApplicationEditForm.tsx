import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { useOutcomeFocus } from '../../hooks/use-outcome-focus.ts';
import { EditHeading } from './EditHeading.tsx';
import { EnvironmentSelect } from './EnvironmentSelect.tsx';
import { problemFor } from './field-problems.ts';
import { FormButtons } from './RowActions.tsx';
import type { Application, Environment } from './types.ts';

/**
 * Renames an application or moves it to another environment. The API refuses an environment one of its clients'
 * redirect URIs does not fit (409 application_environment_conflict, naming the client); that shows here, focused.
 */
export function ApplicationEditForm({
  application,
  onSaved,
  onCancel,
}: {
  application: Application;
  onSaved: (application: Application) => void;
  onCancel: () => void;
}) {
  const action = useAction();
  const outcome = useOutcomeFocus<HTMLFormElement>();
  const [name, setName] = useState(application.name);
  const [environment, setEnvironment] = useState<Environment>(application.environment);

  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await action.run(() =>
      api<Application>('PATCH', `/admin/applications/${encodeURIComponent(application.id)}`, { name, environment }),
    );
    if (saved) onSaved(saved);
    else outcome.settled();
  };

  return (
    <form onSubmit={submit} aria-labelledby="edit-application" ref={outcome.ref} noValidate>
      <EditHeading id="edit-application" text={`Edit application ${application.identifier}`} />
      <ErrorNotice error={action.error} shownFields={['name']} />
      <Field
        id="edit-application-name"
        label="Name"
        required
        value={name}
        onValue={setName}
        error={problemFor(action.error, 'name')}
      />
      <EnvironmentSelect
        id="edit-application-environment"
        value={environment}
        onValue={setEnvironment}
        hint="Only development applications may use localhost redirect URIs."
      />
      <FormButtons save="Save application" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
