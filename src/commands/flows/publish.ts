import { FlowCommand } from '../../cli/flows.js';

export default class FlowsPublish extends FlowCommand<typeof FlowsPublish> {
  static override summary = "Publish a flow's draft as its next version (refused with PUBLISH_BLOCKED while the check finds errors)";
  static override examples = ['<%= config.bin %> flows publish flw_…', '<%= config.bin %> flows publish flw_… --json'];

  async run() {
    const version = await this.storeRequest('POST', `${this.flowPath}/publish`);
    this.output(version, () => this.log(`Published ${version.flowId} v${version.version}; new payments follow it.`));
  }
}
