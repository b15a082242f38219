import { Flags } from '@oclif/core';
import { FlowCommand } from '../../cli/flows.js';

export default class FlowsSimulate extends FlowCommand<typeof FlowsSimulate> {
  static override summary = "Run a made-up item through a flow's draft on a virtual clock";
  static override description =
    'Steps are {"action": KEY, "input"?: {…}}, {"event": NAME, "input"?: {…}} or {"advance": ISO-8601 duration}; --data may also give "orderItem" facts.';
  static override examples = [
    '<%= config.bin %> flows simulate flw_… --data \'{"steps":[{"action":"START_MAKING"},{"advance":"P3D"}]}\'',
    '<%= config.bin %> flows simulate flw_… --data @steps.json --json',
  ];
  static override flags = { data: Flags.string({ required: true, description: '{ steps, orderItem? } as JSON or @file.json' }) };

  async run() {
    const result = await this.storeRequest('POST', `${this.flowPath}/draft/simulate`, { body: this.readJsonObject(this.flags.data) });
    this.output(result, () => {
      this.table(
        result.trace.map((e: any) => ({
          at: e.at,
          trigger: e.trigger.key ?? e.trigger.name ?? (e.trigger.kind === 'timer' ? `timer ${e.trigger.timer}` : e.trigger.kind),
          move: `${e.from ?? '·'} → ${e.to}`,
          core: e.coreStatus,
          refused: e.refusal ? `${e.refusal.code}${e.refusal.reason ? ` ${e.refusal.reason}` : ''}` : '',
          notified: e.notifications.map((n: any) => n.channel).join(' '),
        })),
        ['at', 'trigger', 'move', 'core', 'refused', 'notified'],
      );
      this.log(`Final: ${result.finalState.state} (${result.finalState.coreStatus})${result.truncated ? ' — trace truncated' : ''}`);
    });
  }
}
