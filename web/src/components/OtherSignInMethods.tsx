import type { SignInMethods } from '../hooks/use-sign-in-methods.ts';

/**
 * A button per other sign-in method the service offers, shown only when there is one. A method whose flow has no
 * start path yet (web3 wallets) is left out rather than shown as a button that cannot work.
 */
export function OtherSignInMethods({ methods, returnTo }: { methods: SignInMethods | null; returnTo: string }) {
  const startable = (methods?.providers ?? []).filter((p) => p.start_url !== null);
  if (startable.length === 0) return null;
  const withReturn = (url: string) => `${url}&return_to=${encodeURIComponent(returnTo)}`;
  return (
    <section class="other-methods" aria-labelledby="other-methods-heading">
      <h2 id="other-methods-heading">Other ways to sign in</h2>
      <ul>
        {startable.map((p) => (
          <li key={p.id}>
            <a class="button secondary" href={withReturn(p.start_url ?? '')}>
              Continue with {p.name}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
