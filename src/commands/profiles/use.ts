import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';
import { readConfig, writeConfig } from '../../client/config.js';

export default class ProfilesUse extends ApiCommand<typeof ProfilesUse> {
  static override summary = 'Make a profile the current one';
  static override args = { name: Args.string({ required: true }) };

  async run() {
    const config = readConfig();
    if (!config.profiles[this.args.name]) throw new UsageError(`no profile named "${this.args.name}" (svc profiles list)`);
    config.currentProfile = this.args.name;
    writeConfig(config);
    this.output({ currentProfile: this.args.name }, () => this.log(`Current profile: ${this.args.name}`));
  }
}
