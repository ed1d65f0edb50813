import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';

/**
 * The application a pending OAuth authorization request signs in to, from the sign-in page's return_to
 * (`/oauth/authorize?client_id=...&redirect_uri=...`); null when there is none or the server does not know it.
 */
export function usePendingClient(returnTo: string): string | null {
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    const target = new URL(returnTo, location.origin);
    if (target.pathname !== '/oauth/authorize') return;
    const query = new URLSearchParams();
    for (const key of ['client_id', 'redirect_uri']) query.set(key, target.searchParams.get(key) ?? '');
    api<{ name: string }>('GET', `/oauth/authorize/client?${query}`)
      .then((client) => setName(client.name))
      .catch(() => setName(null));
  }, [returnTo]);
  return name;
}
