import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';
import { readConfig, readCredential, sameService, writeConfig } from '../../client/config.js';

export default class ProfilesAdd extends ApiCommand<typeof ProfilesAdd> {
  static override summary = 'Add or change a profile: a deployment (API URL) and optionally a default store';
  static override examples = ['<%= config.bin %> profiles add prod --api-url https://api.example.com --use'];
  static override args = { name: Args.string({ required: true }) };
  static override flags = {
    'api-url': Flags.string({ description: 'Service root, e.g. https://api.example.com', required: true }),
    'default-store': Flags.string({ description: 'Store id used when --store is not given' }),
    use: Flags.boolean({ description: 'Make it the current profile' }),
  };

  async run() {
    let url: URL;
    try {
      url = new URL(this.flags['api-url']);
    } catch {
      throw new UsageError(`--api-url is not a URL: ${this.flags['api-url']}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError('--api-url must be http(s)');
    const config = readConfig();
    config.profiles[this.args.name] = { apiUrl: url.origin, ...(this.flags['default-store'] ? { storeId: this.flags['default-store'] } : {}) };
    if (this.flags.use) config.currentProfile = this.args.name;
    writeConfig(config);
    // A saved login stays bound to the service it came from: pointing the profile elsewhere keeps it unused, not deleted.
    const saved = readCredential(this.args.name);
    const stale = saved !== undefined && saved.apiUrl !== undefined && !sameService(saved.apiUrl, url.origin);
    this.output({ name: this.args.name, ...config.profiles[this.args.name], current: config.currentProfile === this.args.name }, () =>
      this.log(
        `Profile ${this.args.name} → ${url.origin}${this.flags.use ? ' (current)' : ''}. ${stale ? `Its saved login is for ${saved.apiUrl}; log` : 'Log'} in with: svc login --profile ${this.args.name}`,
      ),
    );
  }
}
