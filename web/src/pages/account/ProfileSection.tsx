import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { t } from '../../i18n/i18n.ts';
import { problemFor } from '../console/field-problems.ts';
import type { Profile } from './types.ts';

export function ProfileSection({ profile, onChange }: { profile: Profile; onChange: () => void }) {
  const action = useAction();
  const [name, setName] = useState(profile.display_name);
  const [saved, setSaved] = useState(false);
  useEffect(() => setName(profile.display_name), [profile.display_name]);
  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    if (await action.run(() => api('PATCH', '/account/profile', { display_name: name }))) {
      setSaved(true);
      onChange();
    }
  };
  return (
    <section aria-labelledby="profile-heading">
      <h2 id="profile-heading">{t('profile.heading')}</h2>
      <ErrorNotice error={action.error} shownFields={['display_name']} />
      <form onSubmit={save}>
        <Field
          id="display-name"
          label={t('profile.name')}
          required
          maxLength={200}
          value={name}
          onValue={setName}
          error={problemFor(action.error, 'display_name')}
        />
        <button type="submit" disabled={action.busy}>
          {t('common.saveName')}
        </button>
        {saved && <span role="status"> {t('profile.saved')}</span>}
      </form>
    </section>
  );
}
