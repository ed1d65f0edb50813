import type { ApiError } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Page } from '../../components/Page.tsx';

/** What a signed-in person who is not an administrator sees instead of the console: why, and where to go. */
export function NotAllowed({ error }: { error: ApiError }) {
  return (
    <Page title="Not allowed">
      <p>
        The administration console is only for owners of this organization whose identity is verified (IAL2) and who
        signed in with two factors. Your account cannot use it.
      </p>
      <ErrorNotice error={error} />
      <p>
        <a class="button" href="/settings">
          Go to your account
        </a>
      </p>
    </Page>
  );
}
