import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Flags } from '@oclif/core';
import { UsageError } from '../../../../src/cli/usage-error.js';
import { StorefrontCommand } from '../../../../src/cli/storefront/storefront-command.js';

export default class StorefrontTypes extends StorefrontCommand<typeof StorefrontTypes> {
  static override summary = "Write the buyer API's types (src/svc-api.d.ts) again from the service's OpenAPI document";
  static override description =
    "The project's code names the buyer API's answers through src/svc-api.d.ts (e.g. Data<'storefrontGetProduct'>). Without --remote the document is the one built into this CLI (no server needed); with --remote it is GET /v1/openapi.json of the chosen profile's server (or SVC_API_URL).";
  static override examples = ['<%= config.bin %> storefront types', '<%= config.bin %> storefront types --remote --profile prod'];
  static override flags = {
    remote: Flags.boolean({ description: "Read the OpenAPI document of the profile's server instead of the one built into this CLI" }),
  };

  async run() {
    if (!existsSync(join(this.dir, 'svc.storefront.json')))
      throw new UsageError(`${this.dir} is not a storefront project (no svc.storefront.json): run svc storefront init, or pass --dir`);
    const written = await this.writeApiTypes(this.dir, this.flags.remote);
    this.output(written, () =>
      this.log(
        `Wrote ${relative(process.cwd(), written.file) || written.file}: ${written.operations} buyer API operations from ${written.source === 'offline' ? 'the OpenAPI document built into this CLI' : written.source}.`,
      ),
    );
  }
}
