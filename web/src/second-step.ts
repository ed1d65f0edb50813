// Where a browser goes after a sign-in: back to what it was doing, or first through the second step its session
// waits for (docs/identity.md "Second step"): the enrollment page, or the second-factor page.
import { api } from './api.ts';

export interface SignInAnswer {
  enrollment_required?: boolean;
  second_factor_required?: boolean;
}

type Pending = 'enrollment' | 'second_factor' | null;

const withReturn = (page: string, returnTo: string) => `${page}?return_to=${encodeURIComponent(returnTo)}`;

export function pagePending(pending: Pending, returnTo: string): string {
  if (pending === 'second_factor') return withReturn('/second-factor', returnTo);
  if (pending === 'enrollment') return withReturn('/enroll', returnTo);
  return returnTo;
}

/** The next page after a sign-in answer (password, passkey, wallet). */
export const pageAfterSignIn = (answer: SignInAnswer, returnTo: string) =>
  pagePending(
    answer.second_factor_required ? 'second_factor' : answer.enrollment_required ? 'enrollment' : null,
    returnTo,
  );

/** For sign-ins whose answer the page does not see (a Farcaster channel): asks the session what it waits for. */
export async function continueAfterSignIn(returnTo: string): Promise<void> {
  const state = await api<{ pending: Pending }>('GET', '/auth/second-factor');
  location.assign(pagePending(state.pending, returnTo));
}
