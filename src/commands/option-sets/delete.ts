import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class OptionSetsDelete extends ApiCommand<typeof OptionSetsDelete> {
  static override summary = 'Delete a saved option set';
  static override args = { optionSetId: Args.string({ description: 'Option set id', required: true }) };

  async run() {
    const data = await this.storeRequest('DELETE', `/v1/saved-option-sets/${encodeURIComponent(this.args.optionSetId)}`);
    this.output(data, () => this.log(`Deleted ${this.args.optionSetId}.`));
  }
}
