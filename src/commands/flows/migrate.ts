import { Flags } from '@oclif/core';
import { FlowCommand } from '../../cli/flows.js';
import { UsageError } from '../../cli/usage-error.js';

export default class FlowsMigrate extends FlowCommand<typeof FlowsMigrate> {
  static override summary = "Move a flow's running items from one version to another, mapping old states to new ones";
  static override examples = [
    '<%= config.bin %> flows migrate flw_… --from 1 --to 2 --map MAKING=CRAFTING',
    '<%= config.bin %> flows migrate flw_… --from 1 --to 2 --json',
  ];
  static override flags = {
    from: Flags.integer({ required: true, description: 'Version the items run on now' }),
    to: Flags.integer({ required: true, description: 'Version to move them to' }),
    map: Flags.string({ description: 'OLD=NEW state mapping (repeatable); unmapped states keep their key', multiple: true }),
  };

  async run() {
    const stateMap = Object.fromEntries(
      (this.flags.map ?? []).map((pair) => {
        const [old, next, ...rest] = pair.split('=');
        if (!old || !next || rest.length) throw new UsageError(`--map ${pair}: expected OLD=NEW`);
        return [old, next];
      }),
    );
    const result = await this.storeRequest('POST', `${this.flowPath}/versions/${this.flags.to}/migrate`, { body: { fromVersion: this.flags.from, stateMap } });
    this.output(result, () => this.log(`Moved ${result.movedItemCount} item(s) from v${result.fromVersion} to v${result.toVersion}.`));
  }
}
