// `npm run openapi`: regenerates api/openapi.json from the routes' schemas (scripts/openapi-contract.ts).
import { writeFileSync } from 'node:fs';
import { CONTRACT_FILE, contractText, generateContract } from './openapi-contract.ts';

writeFileSync(CONTRACT_FILE, contractText(await generateContract()));
process.stdout.write('api/openapi.json regenerated\n');
