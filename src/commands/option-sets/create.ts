import { Flags, type Command } from '@oclif/core';
import { won } from '../../cli/format.js';
import { ApiCommand } from '../../cli/api-command.js';

/** Commands that send or show a whole option set (its groups and inputs are JSON: `--data`). */
export abstract class OptionSetCommand<T extends typeof Command> extends ApiCommand<T> {
  /** `--data` (inline JSON or @file.json), with `--name` on top. */
  protected optionSetBody(data: string, name: string | undefined): Record<string, unknown> {
    const body = this.readJsonObject(data);
    return name === undefined ? body : { ...body, name };
  }

  protected showOptionSet(o: any) {
    this.log(`${o.name}  (${o.optionSetId}, ${o.optionSort})`);
    for (const g of o.groups) {
      const values = g.values.map((v: any) => (v.additionalPrice ? `${v.name}(+${won(v.additionalPrice)})` : v.name));
      this.log(`  ${g.kind === 'ADDON' ? '추가' : '조합'} ${g.name}${g.required ? ' *' : ''}: ${values.join(', ')}`);
    }
    for (const c of o.customInputs) this.log(`  입력 ${c.label} [${c.key}, ${c.type}${c.required ? ', 필수' : ''}]`);
  }
}

export const optionSetFlags = {
  data: Flags.string({ description: 'Option set body as JSON, inline or @file.json: name, optionSort, groups, customInputs', required: true }),
  name: Flags.string({ description: 'Name (overrides the one in --data)' }),
};

export default class OptionSetsCreate extends OptionSetCommand<typeof OptionSetsCreate> {
  static override summary = 'Save an option set (at most 200 per store)';
  static override examples = [
    '<%= config.bin %> option-sets create --data @sizes.json',
    `<%= config.bin %> option-sets create --name 사이즈 --data '{"groups":[{"name":"사이즈","kind":"COMBINATION","required":true,"values":[{"name":"S","additionalPrice":0}]}]}'`,
  ];
  static override flags = optionSetFlags;

  async run() {
    const set = await this.storeRequest('POST', '/v1/saved-option-sets', { body: this.optionSetBody(this.flags.data, this.flags.name) });
    this.output(set, () => {
      this.log('Saved:');
      this.showOptionSet(set);
    });
  }
}
