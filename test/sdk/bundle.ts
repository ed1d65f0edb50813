// Bundles a browser entry with Vite (its Rolldown bundler) in memory, as an app using @gatehouse/browser would.
import { build, type Rolldown } from 'vite';

export async function bundle(entry: string, minify: boolean): Promise<string> {
  const output = (await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify, lib: { entry, formats: ['es'], fileName: 'bundle' } },
  })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
  const [first] = Array.isArray(output) ? output : [output];
  const chunks = first?.output.filter((o) => o.type === 'chunk') ?? [];
  if (chunks.length !== 1 || chunks[0]?.type !== 'chunk') throw new Error(`${entry} did not bundle into one chunk`);
  return chunks[0].code;
}
