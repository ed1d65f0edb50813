import { ApiError, api } from '../api.ts';
import { useAction } from '../hooks/use-api.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

/**
 * "Sign out", for the account page and the console header. It leaves only once the server ended the session: on a
 * failure the person stays, sees why, and knows they may still be signed in.
 */
export function SignOutButton({ label, class: className = 'secondary' }: { label: string; class?: string }) {
  const signOut = useAction();
  const leave = async () => {
    const ended = await signOut.run(async () => {
      try {
        await api('POST', '/auth/logout', {});
      } catch (caught) {
        // 401: the session had already ended elsewhere, which is what signing out wanted.
        if (!(caught instanceof ApiError && caught.status === 401)) throw caught;
      }
      return true;
    });
    if (ended) location.assign('/signin');
  };
  return (
    <>
      <ErrorNotice error={signOut.error} />
      <button type="button" class={className} onClick={() => void leave()} disabled={signOut.busy}>
        {label}
      </button>
    </>
  );
}
