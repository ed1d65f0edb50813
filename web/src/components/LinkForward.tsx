import type { ApiError } from '../api.ts';

/** The codes that mean "this emailed link is spent": expired, already used or unknown, or guessed at too often. */
const LINK_ERRORS = new Set(['verification_invalid', 'verification_expired', 'verification_attempts_exceeded']);

export const isSpentLink = (error: ApiError | null) => error !== null && LINK_ERRORS.has(error.code);

export interface Forward {
  href: string;
  label: string;
}

/** What to do after a link that no longer works: get a new one, or sign in if it was used already. */
export function LinkForward({ next }: { next: Forward }) {
  return (
    <section class="link-forward" aria-labelledby="link-forward-heading">
      <h2 id="link-forward-heading">What now?</h2>
      <p>
        Links in our messages work once and for a limited time. Ask for a new one, or sign in if you already used it.
      </p>
      <p>
        <a class="button" href={next.href}>
          {next.label}
        </a>
        <a class="button secondary" href="/signin">
          Sign in
        </a>
      </p>
    </section>
  );
}
