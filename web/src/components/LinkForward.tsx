import type { ApiError } from '../api.ts';
import { t } from '../i18n/i18n.ts';

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
      <h2 id="link-forward-heading">{t('link.whatNow')}</h2>
      <p>{t('link.explain')}</p>
      <p>
        <a class="button" href={next.href}>
          {next.label}
        </a>
        <a class="button secondary" href="/signin">
          {t('common.signIn')}
        </a>
      </p>
    </section>
  );
}
