import { Args, Flags } from '@oclif/core';
import { OrderItemFlowCommand } from '../../cli/flows.js';
import { UsageError } from '../../cli/usage-error.js';

export default class OrdersAction extends OrderItemFlowCommand<typeof OrdersAction> {
  static override summary = "Run any seller action of an order item's flow, with its inputs";
  static override description =
    'Inputs come as repeated --input key=value (strings; true/false become booleans) or as one --data JSON object. svc orders flow ITEM lists the actions and their inputs.';
  static override examples = [
    '<%= config.bin %> orders action oi_… DISPATCH --input carrier=CJ대한통운 --input trackingNo=123456789012',
    '<%= config.bin %> orders action oi_… SEND_PROOF --data \'{"proofUrl":"https://…"}\' --json',
  ];
  static override args = { ...OrderItemFlowCommand.args, key: Args.string({ required: true, description: 'Action key (e.g. CONFIRM, DISPATCH)' }) };
  static override flags = {
    input: Flags.string({ description: 'One input as key=value (repeatable)', multiple: true }),
    data: Flags.string({ description: 'All inputs as a JSON object (or @file.json)', exclusive: ['input'] }),
  };

  async run() {
    const input = this.flags.data
      ? this.readJsonObject(this.flags.data)
      : Object.fromEntries(
          (this.flags.input ?? []).map((pair) => {
            const at = pair.indexOf('=');
            if (at < 1) throw new UsageError(`--input ${pair}: expected key=value`);
            const value = pair.slice(at + 1);
            return [pair.slice(0, at), value === 'true' ? true : value === 'false' ? false : value];
          }),
        );
    await this.move(`actions/${encodeURIComponent(this.args.key)}`, { input });
  }
}
