import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';

export interface OfferedProvider {
  id: string;
  name: string;
  /** saml: a SAML connection; start_url then takes `?return_to=` (the others `&return_to=`). */
  kind: 'redirect' | 'web3' | 'saml';
  start_url: string | null;
}

export interface SignInMethods {
  providers: OfferedProvider[];
  passkeys: boolean;
  self_service: boolean;
  /** Messages are kept in the development mailbox (console page and terminal) instead of being sent. */
  dev_mailbox: boolean;
}

/**
 * GET /auth/providers once. Until it answers (or if it fails) nothing extra is offered: password sign-in works
 * without it, so a failure here is not worth an error on the page.
 */
export function useSignInMethods(): SignInMethods | null {
  const [methods, setMethods] = useState<SignInMethods | null>(null);
  useEffect(() => {
    let live = true;
    api<SignInMethods>('GET', '/auth/providers')
      .then((value) => live && setMethods(value))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return methods;
}
