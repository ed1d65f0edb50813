import { Page } from '../components/Page.tsx';

export function NotFound() {
  return (
    <Page title="Page not found">
      <p>There is no page at this address.</p>
      <p>
        <a href="/signin">Go to sign-in</a>
      </p>
    </Page>
  );
}
