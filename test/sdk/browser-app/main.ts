// The page of the browser SDK test: the BUILT @gatehouse/browser (sdk/browser/dist), its exports on `window.sdk` and
// the settings from the page on `window.settings`, so the test drives each step with page.evaluate.
import * as sdk from '../../../sdk/browser/dist/index.js';

declare const document: { getElementById(id: string): { textContent: string | null } | null };
declare const window: { sdk?: typeof sdk; settings?: unknown };

window.settings = JSON.parse(document.getElementById('config')?.textContent ?? '{}');
window.sdk = sdk;
