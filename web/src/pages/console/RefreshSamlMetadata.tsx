import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useAction } from '../../hooks/use-api.ts';

/**
 * "Refresh metadata now" (POST /admin/saml-connections/:id/metadata/refresh), for a connection with a metadata URL:
 * an identity provider's key rollover is then trusted without waiting for the next scheduled fetch.
 */
export function RefreshSamlMetadata({
  c,
  onRefreshed,
}: {
  c: { id: string; name: string; idp_metadata_url: string };
  onRefreshed: (what: string) => void;
}) {
  const action = useAction();
  const refresh = async () => {
    const path = `/admin/saml-connections/${encodeURIComponent(c.id)}/metadata/refresh`;
    if (await action.run(() => api('POST', path, {}))) onRefreshed(`Fetched the metadata of ${c.name} again.`);
  };
  return (
    <div class="actions">
      <ErrorNotice error={action.error} />
      <button
        type="button"
        disabled={action.busy}
        aria-label={`Refresh metadata of ${c.name} now`}
        onClick={() => void refresh()}
      >
        Refresh metadata now
      </button>
    </div>
  );
}
