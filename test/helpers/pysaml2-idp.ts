// A real third-party SAML identity provider for the tests: pysaml2 (Debian's python3-pysaml2, signing through
// xmlsec1) behind the small WSGI app in pysaml2-idp/idp.py, started on a free loopback port. What it signs with,
// whom it signs in and which service provider it knows live in a state directory the test writes (idp.py says how);
// the app re-reads them on every request, so a key rollover is two files replaced.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { scratchDir } from './config.ts';
import { type KeyPair, makeKeyPair } from './saml-idp.ts';

const SCRIPT = path.join(import.meta.dirname, 'pysaml2-idp', 'idp.py');

export interface Pysaml2Person {
  uid: string;
  /** pysaml2's friendly names (mail, displayName, isMemberOf, ...); it sends them under their urn:oid: names. */
  attributes: Record<string, string[]>;
}

export interface Pysaml2Idp {
  url: string;
  entityId: string;
  metadataUrl: string;
  ssoUrl: string;
  keys: KeyPair;
  /** Who signs in next. */
  setPerson(person: Pysaml2Person): void;
  /** The service provider's metadata, as its administrator would load it into the identity provider. */
  setServiceProvider(metadataXml: string): void;
  /** Signs with a new key pair from now on, and publishes its certificate (alone) in the metadata. */
  rollKey(name: string): KeyPair;
  stop(): Promise<void>;
}

export async function startPysaml2Idp(): Promise<Pysaml2Idp> {
  const dir = scratchDir('gatehouse-pysaml2-');
  const useKeys = (keys: KeyPair) => {
    copyFileSync(keys.keyFile, path.join(dir, 'idp.key'));
    copyFileSync(keys.certFile, path.join(dir, 'idp.crt'));
    return keys;
  };
  let keys = useKeys(makeKeyPair('pysaml2-idp'));
  const child: ChildProcess = spawn('/usr/bin/python3', [SCRIPT, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`pysaml2 IdP exited (${code}): ${stderr}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) =>
      resolve(Number(/^listening (\d+)$/.exec(line)?.[1])),
    );
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    entityId: `${url}/metadata`,
    metadataUrl: `${url}/metadata`,
    ssoUrl: `${url}/sso`,
    get keys() {
      return keys;
    },
    setPerson: (person) => writeFileSync(path.join(dir, 'person.json'), JSON.stringify(person)),
    setServiceProvider: (xml) => writeFileSync(path.join(dir, 'sp.xml'), xml),
    rollKey: (name) => {
      keys = useKeys(makeKeyPair(name));
      return keys;
    },
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
