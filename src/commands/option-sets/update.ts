import { Args } from '@oclif/core';
import { OptionSetCommand, optionSetFlags } from './create.js';

export default class OptionSetsUpdate extends OptionSetCommand<typeof OptionSetsUpdate> {
  static override summary = 'Replace a saved option set whole (fields left out take their defaults)';
  static override examples = ['<%= config.bin %> option-sets update opts_123 --data @sizes.json'];
  static override args = { optionSetId: Args.string({ description: 'Option set id', required: true }) };
  static override flags = optionSetFlags;

  async run() {
    const path = `/v1/saved-option-sets/${encodeURIComponent(this.args.optionSetId)}`;
    const set = await this.storeRequest('PUT', path, { body: this.optionSetBody(this.flags.data, this.flags.name) });
    this.output(set, () => this.showOptionSet(set));
  }
}
