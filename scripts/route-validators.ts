// `npm run validators`: regenerates src/http/route-validators.generated.cjs from the routes' request schemas
// (scripts/route-validators-source.ts). Run it after changing a route's body, query, params or headers schema.
import { writeFileSync } from 'node:fs';
import { generateValidatorsSource, VALIDATORS_FILE } from './route-validators-source.ts';

writeFileSync(VALIDATORS_FILE, await generateValidatorsSource());
process.stdout.write('src/http/route-validators.generated.cjs regenerated\n');
