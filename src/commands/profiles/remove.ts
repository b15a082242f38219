import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';
import { DEFAULT_PROFILE, readConfig, writeConfig, writeCredential } from '../../client/config.js';

export default class ProfilesRemove extends ApiCommand<typeof ProfilesRemove> {
  static override summary = 'Remove a profile and its saved credential';
  static override args = { name: Args.string({ required: true }) };

  async run() {
    const config = readConfig();
    if (!config.profiles[this.args.name]) throw new UsageError(`no profile named "${this.args.name}"`);
    if (this.args.name === DEFAULT_PROFILE) throw new UsageError('the default profile cannot be removed; change it with svc profiles add default --api-url …');
    delete config.profiles[this.args.name];
    if (config.currentProfile === this.args.name) config.currentProfile = DEFAULT_PROFILE;
    writeConfig(config);
    writeCredential(this.args.name, undefined);
    this.output({ removed: this.args.name }, () => this.log(`Removed profile ${this.args.name}.`));
  }
}
