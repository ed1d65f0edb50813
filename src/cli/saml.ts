// `gatehouse saml refresh-metadata <id>`: see src/operations/saml-metadata.ts.

import { refreshStoredSamlMetadata } from '../operations/saml-metadata.ts';
import type { CommandInput, OptionValues } from './args.ts';
import { loadCommandConfig } from './development-instance.ts';
import { connectionOf, withOperator } from './operator-session.ts';
import type { SAML_REFRESH_OPTIONS } from './options.ts';

export async function samlRefreshMetadata({
  values,
  positionals: [id = ''],
}: CommandInput<OptionValues<typeof SAML_REFRESH_OPTIONS>>): Promise<number> {
  const { config } = loadCommandConfig({ configPath: values.config }, { needsInstance: true });
  const done = await withOperator(connectionOf(values), (deps, actor) =>
    refreshStoredSamlMetadata(deps, actor, config, id),
  );
  const keys = done.keys_changed ? 'new signing keys' : 'signing keys unchanged';
  process.stdout.write(`Refreshed SAML connection ${done.id} from its metadata URL (${done.idp_entity_id}): ${keys}\n`);
  return 0;
}
