import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class FlowsCreate extends ApiCommand<typeof FlowsCreate> {
  static override summary = 'Create a custom flow from a preset (svc api GET /v1/flow-presets), a definition file, or the default of its kind';
  static override examples = [
    '<%= config.bin %> flows create --name "주문 제작" --kind SHIPPING --preset made-to-order',
    '<%= config.bin %> flows create --name "시안 흐름" --kind SHIPPING --definition @flow.json --json',
  ];
  static override flags = {
    name: Flags.string({ required: true, description: 'Flow name (60 characters)' }),
    kind: Flags.string({ required: true, options: ['SHIPPING', 'MANUAL'], description: 'Fulfilment kind the flow is for' }),
    preset: Flags.string({ description: 'Preset key (made-to-order, digital-delivery, reservation, pickup)', exclusive: ['definition'] }),
    definition: Flags.string({ description: 'Definition as JSON or @file.json' }),
  };

  async run() {
    const body: Record<string, unknown> = { name: this.flags.name, kind: this.flags.kind };
    if (this.flags.preset) body.presetKey = this.flags.preset;
    if (this.flags.definition) body.definition = this.readJsonObject(this.flags.definition, 'definition');
    const flow = await this.storeRequest('POST', '/v1/commerce-flows', { body });
    this.output(flow, () => this.log(`Created ${flow.flowId} (${flow.name}) as a draft. Next: svc flows check ${flow.flowId}`));
  }
}
