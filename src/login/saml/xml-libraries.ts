// @xmldom/xmldom and xpath, loaded at the first SAML document read (a metadata file or URL, an admin's metadata, a
// response). A node without SAML connections never reads one, though the modules that would are imported on every
// node (the admin routes that accept metadata, the sign-in page's SAML paths). Their CommonJS builds keep the
// readers synchronous, as with otpauth (src/login/local/totp.ts).
import { createRequire } from 'node:module';
import type * as Xmldom from '@xmldom/xmldom';
import type XPath from 'xpath';

const require = createRequire(import.meta.url);

interface XmlLibraries {
  DOMParser: typeof Xmldom.DOMParser;
  xpath: typeof XPath;
}

let loaded: XmlLibraries | null = null;

export function xmlLibraries(): XmlLibraries {
  loaded ??= {
    DOMParser: (require('@xmldom/xmldom') as typeof Xmldom).DOMParser,
    xpath: require('xpath') as typeof XPath,
  };
  return loaded;
}
