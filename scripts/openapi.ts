// `npm run openapi`: regenerates api/openapi.json from the routes' schemas (scripts/openapi-contract.ts), and
// docs/api-reference.md, its rendering for reading.
import { writeFileSync } from 'node:fs';
import { renderApiReference } from './api-reference.ts';
import { CONTRACT_FILE, contractText, generateContract } from './openapi-contract.ts';

const document = await generateContract();
writeFileSync(CONTRACT_FILE, contractText(document));
writeFileSync(new URL('../docs/api-reference.md', import.meta.url), renderApiReference(document as never));
process.stdout.write('api/openapi.json and docs/api-reference.md regenerated\n');
