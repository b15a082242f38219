import { Flags } from '@oclif/core';
import { FlowCommand } from '../../cli/flows.js';
import { toDot, toMermaid } from '../../cli/flow-graph.js';

export default class FlowsGraph extends FlowCommand<typeof FlowsGraph> {
  static override summary = 'Print a flow as a diagram: Mermaid (default) or Graphviz dot';
  static override description =
    'Shows the draft, else the published version; --version picks a published one. Paste Mermaid into GitHub or Notion; pipe dot into `dot -Tsvg`.';
  static override examples = [
    '<%= config.bin %> flows graph flw_…',
    '<%= config.bin %> flows graph flw_… --format dot | dot -Tsvg > flow.svg',
    '<%= config.bin %> flows graph flw_… --version 2 --json',
  ];
  static override flags = {
    format: Flags.string({ options: ['mermaid', 'dot'], default: 'mermaid', description: 'Diagram language' }),
    version: Flags.integer({ description: 'A published version instead of the draft' }),
  };

  async run() {
    const flow = await this.storeRequest('GET', this.flowPath);
    const version = this.flags.version ?? (flow.draft ? null : flow.publishedVersion);
    const definition = version === null ? flow.draft : (await this.storeRequest('GET', `${this.flowPath}/versions/${version}`)).definition;
    const diagram = this.flags.format === 'dot' ? toDot(definition, flow.name) : toMermaid(definition);
    this.output({ flowId: flow.flowId, version, format: this.flags.format, diagram }, () => this.log(diagram));
  }
}
