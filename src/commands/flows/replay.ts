import { Args } from '@oclif/core';
import { FlowCommand } from '../../cli/flows.js';

export default class FlowsReplay extends FlowCommand<typeof FlowsReplay> {
  static override summary = "Re-run an order item's recorded history under a flow's draft and show where it first differs";
  static override examples = ['<%= config.bin %> flows replay flw_… oi_…', '<%= config.bin %> flows replay flw_… oi_… --json'];
  static override args = { ...FlowCommand.args, orderItemId: Args.string({ required: true, description: 'Order item id (oi_…)' }) };

  async run() {
    const result = await this.storeRequest('POST', `${this.flowPath}/draft/replay`, { body: { orderItemId: this.args.orderItemId } });
    this.output(result, () => {
      this.table(
        result.steps.map((s: any) => ({
          at: s.at,
          trigger: s.trigger.key ?? s.trigger.name ?? s.trigger.kind,
          recorded: s.recorded.to,
          draft: s.draft.to,
          same: s.same ? 'yes' : `NO${s.draft.refusal ? ` (${s.draft.refusal.code})` : ''}`,
        })),
        ['at', 'trigger', 'recorded', 'draft', 'same'],
      );
      this.log(
        result.divergence
          ? `First divergence at ${result.divergence.at}: recorded ${result.divergence.recorded.to}, draft ${result.divergence.draft.to}`
          : 'No divergence: the draft replays the history as recorded.',
      );
    });
  }
}
