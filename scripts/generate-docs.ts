// `npm run docs`: regenerates the reference documents that are derived from code.
import { writeFileSync } from 'node:fs';
import { renderConfigurationDoc } from '../src/config/docs.ts';
import { renderErrorsDoc } from '../src/http/errors-doc.ts';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigurationDoc());
writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorsDoc());
process.stdout.write('docs/configuration.md and docs/errors.md regenerated\n');
