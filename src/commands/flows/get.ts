import { FlowCommand } from '../../cli/flows.js';

export default class FlowsGet extends FlowCommand<typeof FlowsGet> {
  static override summary = 'Show an order flow: kind, progression, published version and draft states';
  static override examples = ['<%= config.bin %> flows get flw_…', '<%= config.bin %> flows get flw_… --json'];

  async run() {
    const flow = await this.storeRequest('GET', this.flowPath);
    this.output(flow, () => {
      this.log(
        `${flow.flowId} · ${flow.name} · ${flow.kind}${flow.isDefault ? ' (default)' : ''} · ${flow.progression} · published v${flow.publishedVersion ?? '-'}`,
      );
      this.log(
        flow.draft
          ? `Draft: ${Object.keys(flow.draft.states).length} states, ${flow.draft.transitions.length} transitions, ${Object.keys(flow.draft.actions).length} actions`
          : 'Draft: none',
      );
    });
  }
}
