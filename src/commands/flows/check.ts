import { FlowCommand } from '../../cli/flows.js';

export default class FlowsCheck extends FlowCommand<typeof FlowsCheck> {
  static override summary = "Check a flow's draft; exits 1 when it has errors that block publishing";
  static override examples = ['<%= config.bin %> flows check flw_…', '<%= config.bin %> flows check flw_… --json'];

  async run() {
    const result = await this.storeRequest('POST', `${this.flowPath}/draft/check`);
    this.output(result, () => {
      this.printFindings('Errors', result.errors);
      this.printFindings('Warnings', result.warnings);
    });
    if (result.errors.length) this.exit(1);
  }
}
