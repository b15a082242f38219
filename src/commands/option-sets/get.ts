import { Args } from '@oclif/core';
import { OptionSetCommand } from './create.js';

export default class OptionSetsGet extends OptionSetCommand<typeof OptionSetsGet> {
  static override summary = 'Show a saved option set';
  static override args = { optionSetId: Args.string({ description: 'Option set id', required: true }) };

  async run() {
    const set = await this.storeRequest('GET', `/v1/saved-option-sets/${encodeURIComponent(this.args.optionSetId)}`);
    this.output(set, () => this.showOptionSet(set));
  }
}
