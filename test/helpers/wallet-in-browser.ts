// An Ethereum wallet inside Chromium for browser tests: an EIP-1193 provider announced by EIP-6963, whose signing is
// done in the test process by a viem local account (the page never sees the key).
import type { Page } from 'playwright-core';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

export async function injectWallet(page: Page, account: PrivateKeyAccount, name: string, chainId = 1): Promise<void> {
  await page.exposeFunction('__testWalletSign', (raw: Hex) => account.signMessage({ message: { raw } }));
  await page.addInitScript(
    ({ address, chainHex, walletName }) => {
      const sign = (window as unknown as { __testWalletSign(raw: string): Promise<string> }).__testWalletSign;
      const provider = {
        async request({ method, params }: { method: string; params?: unknown[] }) {
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [address];
          if (method === 'eth_chainId') return chainHex;
          if (method === 'personal_sign') return sign(String(params?.[0]));
          throw Object.assign(new Error(`unsupported method ${method}`), { code: 4200 });
        },
      };
      const announce = () =>
        window.dispatchEvent(
          new CustomEvent('eip6963:announceProvider', {
            detail: Object.freeze({
              info: { uuid: '6f1c1c7e-3f7a-4d1b-9a55-5f0b3e0d9a01', name: walletName, icon: '', rdns: 'dev.test' },
              provider,
            }),
          }),
        );
      window.addEventListener('eip6963:requestProvider', announce);
      announce();
    },
    { address: account.address, chainHex: `0x${chainId.toString(16)}`, walletName: name },
  );
}
