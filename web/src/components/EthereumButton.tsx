import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../hooks/use-api.ts';
import { t } from '../i18n/i18n.ts';
import { type DiscoveredWallet, discoverWallets, signWithEthereum } from '../wallet/ethereum.ts';
import { ErrorNotice } from './ErrorNotice.tsx';
import { ProviderMark } from './ProviderMark.tsx';

/**
 * Sign-In with Ethereum (or linking a wallet): one button per discovered wallet, so a person with several picks
 * which one signs. `label` is the button's text for a wallet name; `done` runs after the server accepted.
 */
export function EthereumButton({
  base,
  label,
  done,
}: {
  base: string;
  label: (wallet: string, several: boolean) => string;
  done: () => void;
}) {
  const [wallets, setWallets] = useState<DiscoveredWallet[]>([]);
  const action = useAction();
  useEffect(() => discoverWallets(setWallets), []);
  const sign = async (wallet: DiscoveredWallet) => {
    const signed = await action.run(async () => {
      await signWithEthereum(wallet, base);
      return true;
    });
    if (signed) done();
  };
  if (wallets.length === 0) return <p class="hint">{t('wallet.installEthereum')}</p>;
  return (
    <>
      <ErrorNotice error={action.error} />
      {wallets.map((w) => (
        <button key={w.id} type="button" class="secondary" disabled={action.busy} onClick={() => void sign(w)}>
          <ProviderMark name="Ethereum" /> {label(w.name, wallets.length > 1)}
        </button>
      ))}
    </>
  );
}
