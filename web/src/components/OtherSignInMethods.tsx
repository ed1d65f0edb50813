import type { SignInMethods } from '../hooks/use-sign-in-methods.ts';
import { t } from '../i18n/i18n.ts';
import { continueAfterSignIn } from '../second-step.ts';
import { EthereumButton } from './EthereumButton.tsx';
import { FarcasterButton } from './FarcasterButton.tsx';
import { ProviderMark } from './ProviderMark.tsx';

/**
 * A button per other sign-in method the service offers, shown only when there is one. A redirect provider's button
 * navigates to its start path; Ethereum's signs with a wallet in the page; Farcaster's shows a QR code and waits for
 * the Farcaster app. A method whose flow has no start path is left out rather than shown as a button that cannot work.
 */
export function OtherSignInMethods({
  methods,
  returnTo,
  heading = t('methods.heading'),
}: {
  methods: SignInMethods | null;
  returnTo: string;
  heading?: string;
}) {
  const startable = (methods?.providers ?? []).filter((p) => p.start_url !== null);
  if (startable.length === 0) return null;
  const redirect = startable.filter((p) => p.kind === 'redirect');
  const saml = startable.filter((p) => p.kind === 'saml');
  const ethereum = startable.some((p) => p.id === 'ethereum');
  const farcaster = startable.some((p) => p.id === 'farcaster');
  // A wallet proves one factor: a person with a second factor continues through it (docs/identity.md).
  const afterWallet = () => void continueAfterSignIn(returnTo).catch(() => location.assign(returnTo));
  const withReturn = (url: string) => `${url}&return_to=${encodeURIComponent(returnTo)}`;
  return (
    <section class="other-methods" aria-labelledby="other-methods-heading">
      <h2 id="other-methods-heading">{heading}</h2>
      <ul>
        {redirect.map((p) => (
          <li key={p.id}>
            {/* target=_top: a full navigation to the server's start route, not the client-side router (which would
                render its not-found page for a path it does not know). The page is never framed, so it stays here. */}
            <a class="button secondary" href={withReturn(p.start_url ?? '')} target="_top">
              <ProviderMark name={p.name} /> {t('methods.continueWith', { provider: p.name })}
            </a>
          </li>
        ))}
        {saml.map((p) => (
          <li key={`saml-${p.id}`}>
            <a
              class="button secondary"
              href={`${p.start_url ?? ''}?return_to=${encodeURIComponent(returnTo)}`}
              target="_top"
            >
              <ProviderMark name={p.name} /> {t('methods.signInWith', { provider: p.name })}
            </a>
          </li>
        ))}
        {ethereum && (
          <li>
            <EthereumButton
              base="/auth/web3/ethereum"
              label={(wallet, several) => t('methods.ethereum', { wallet, several: several ? 'yes' : 'no' })}
              done={afterWallet}
            />
          </li>
        )}
        {farcaster && (
          <li>
            <FarcasterButton base="/auth/web3/farcaster" label={t('methods.farcaster')} done={afterWallet} />
          </li>
        )}
      </ul>
    </section>
  );
}
