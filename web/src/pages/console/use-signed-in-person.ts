import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';

export interface SignedInPerson {
  sub: string;
  display_name: string;
  email: string | null;
  organization_id: string;
  roles: string[];
}

// Every console page draws the header again: the answer is kept for the page's life so moving between sections does
// not flash an empty header. Signing out loads another page, which forgets it.
let known: SignedInPerson | null = null;

/**
 * GET /admin/me for the header. Null until it answers, and on a failure: the page's own request shows the reason
 * (sign-in, not allowed), so the header does not say it twice.
 */
export function useSignedInPerson(): SignedInPerson | null {
  const [person, setPerson] = useState(known);
  useEffect(() => {
    if (known) return;
    let live = true;
    api<SignedInPerson>('GET', '/admin/me')
      .then((found) => {
        known = found;
        if (live) setPerson(found);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return person;
}
