// Ethereum wallets in the browser: EIP-6963 discovery (every installed wallet announces itself, so several can
// coexist) with the legacy EIP-1193 `window.ethereum` as a fallback, and the Sign-In with Ethereum round trip: the
// server builds the EIP-4361 message, the wallet signs it (personal_sign, EIP-191), the server verifies.
import { stringToHex } from 'viem';
import { ApiError, api } from '../api.ts';
import { t } from '../i18n/i18n.ts';

/** EIP-1193: the one method every wallet provider has. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export interface DiscoveredWallet {
  /** EIP-6963 uuid, or 'injected' for window.ethereum. */
  id: string;
  name: string;
  provider: Eip1193Provider;
}

interface AnnounceDetail {
  info: { uuid: string; name: string };
  provider: Eip1193Provider;
}

/** Asks every EIP-6963 wallet to announce itself; calls `found` with the list so far on each announcement. */
export function discoverWallets(found: (wallets: DiscoveredWallet[]) => void): () => void {
  const wallets = new Map<string, DiscoveredWallet>();
  const publish = () => {
    const list = [...wallets.values()];
    const injected = (window as { ethereum?: Eip1193Provider }).ethereum;
    // A wallet that only injects window.ethereum (no EIP-6963) is still usable when nothing announced itself.
    if (list.length === 0 && injected)
      list.push({ id: 'injected', name: t('wallet.browserWallet'), provider: injected });
    found(list);
  };
  const onAnnounce = (event: Event) => {
    const { info, provider } = (event as CustomEvent<AnnounceDetail>).detail;
    wallets.set(info.uuid, { id: info.uuid, name: info.name, provider });
    publish();
  };
  window.addEventListener('eip6963:announceProvider', onAnnounce);
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  publish();
  return () => window.removeEventListener('eip6963:announceProvider', onAnnounce);
}

const walletError = (description: string) =>
  new ApiError(0, { error: 'wallet_error', error_description: description, request_id: '' }, null);

/** What the wallet said, in words: 4001 is EIP-1193's "the person refused". */
function fromWallet(caught: unknown): ApiError {
  const code = (caught as { code?: unknown }).code;
  if (code === 4001) return walletError(t('wallet.declined'));
  const message = (caught as { message?: unknown }).message;
  return walletError(t('wallet.failed', { reason: typeof message === 'string' ? message : String(caught) }));
}

/**
 * Signs in (base /auth/web3/ethereum) or links (base /account/connections/ethereum) with the chosen wallet's first
 * account, on the chain the wallet is on; the server refuses a chain outside its allow-list and says which it takes.
 */
export async function signWithEthereum(wallet: DiscoveredWallet, base: string): Promise<unknown> {
  let address: string;
  let chainId: number;
  try {
    const accounts = (await wallet.provider.request({ method: 'eth_requestAccounts' })) as string[];
    if (!accounts[0]) throw walletError(t('wallet.noAccount'));
    address = accounts[0];
    chainId = Number.parseInt(String(await wallet.provider.request({ method: 'eth_chainId' })), 16);
  } catch (caught) {
    throw caught instanceof ApiError ? caught : fromWallet(caught);
  }
  const { message } = await api<{ message: string }>('POST', `${base}/start`, { address, chain_id: chainId });
  let signature: string;
  try {
    signature = String(
      await wallet.provider.request({ method: 'personal_sign', params: [stringToHex(message), address] }),
    );
  } catch (caught) {
    throw fromWallet(caught);
  }
  return api('POST', `${base}/complete`, { message, signature });
}
