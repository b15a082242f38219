import { Args, type Command } from '@oclif/core';
import { ApiCommand } from './api-command.js';

/** Base of the `svc flows` commands that act on one flow. */
export abstract class FlowCommand<T extends typeof Command> extends ApiCommand<T> {
  static override args = { flowId: Args.string({ required: true, description: 'Flow id (flw_…)' }) };

  protected get flowPath() {
    return `/v1/commerce-flows/${encodeURIComponent((this.args as { flowId: string }).flowId)}`;
  }

  /** Check findings for people, one per line: code, path, message. */
  protected printFindings(title: string, findings: { code: string; path: string; message: string }[]) {
    this.log(`${title}: ${findings.length}`);
    for (const f of findings) this.log(`  ${f.code}  ${f.path}  ${f.message}`);
  }
}
