// The release version, from package.json. A JSON import (not a createRequire of the file) so the release bundle
// carries it inside the executable, where no package.json sits beside the code.
import packageJson from '../package.json' with { type: 'json' };

export const VERSION: string = packageJson.version;
