import { Args, Flags } from '@oclif/core';
import { UsageError } from '../../../../../src/cli/usage-error.js';
import { AppCommand } from '../../../../../src/cli/app/app-command.js';

export default class AppToolsCall extends AppCommand<typeof AppToolsCall> {
  static override summary = "Call one of the app's tools in a store, as an agent would";
  static override examples = [
    `<%= config.bin %> app tools call greet --input '{"name":"민지"}'`,
    '<%= config.bin %> app tools call greet --input @input.json --installation inst_123',
  ];
  static override args = { name: Args.string({ description: 'Tool name (manifest mcp.tools)', required: true }) };
  static override flags = {
    input: Flags.string({ description: 'Tool input as JSON or @file.json', default: '{}' }),
    installation: Flags.string({ description: "Installation id (default: this folder's app in the store)" }),
  };

  async run() {
    const input = this.readJsonInput(this.flags.input, 'input');
    const installationId = this.flags.installation ?? (await this.installationOf(this.project().manifest.handle))?.installationId;
    if (!installationId) throw new UsageError('the app is not installed in this store: run svc app install');
    const { result } = await this.storeRequest<{ result: unknown }>(
      'POST',
      `/v1/apps/installations/${installationId}/tools/${encodeURIComponent(this.args.name)}`,
      { body: { input } },
    );
    this.output(result, () => this.log(JSON.stringify(result, null, 2)));
  }
}
