import { Args, type Command } from '@oclif/core';
import { ApiCommand } from './api-command.js';

/**
 * Base of the `svc orders` commands that act on one order item's flow: `confirm`, `dispatch`, `deliver`,
 * `fulfill`, `action`, `flow`. Each posts or reads, then shows where the item stands.
 */
export abstract class OrderItemFlowCommand<T extends typeof Command> extends ApiCommand<T> {
  static override args = { orderItemId: Args.string({ required: true, description: 'Order item id (oi_…)' }) };

  protected get itemPath() {
    return `/v1/order-items/${encodeURIComponent((this.args as { orderItemId: string }).orderItemId)}`;
  }

  /** Posts to the item's endpoint (`confirm`, `actions/KEY`, …) and prints the move. */
  protected async move(path: string, body?: Record<string, unknown>) {
    const flow = await this.storeRequest('POST', `${this.itemPath}/${path}`, body === undefined ? {} : { body });
    this.output(flow, () => this.log(`${flow.orderItemId} → ${flow.state} (${flow.label}) · core ${flow.coreStatus}`));
  }

  /** An item's flow state for people: state, actions (enabled or why not, with inputs) and timers. */
  protected printItemFlow(flow: any) {
    this.log(
      `Item ${flow.orderItemId} · ${flow.state} (${flow.label}) · core ${flow.coreStatus} · flow ${flow.flowId} v${flow.version}${flow.groupId ? ` · group ${flow.groupId}` : ''}`,
    );
    this.log('Actions');
    this.table(
      flow.actions.map((a: any) => ({
        key: a.key,
        label: a.label,
        actor: a.actor,
        enabled: a.enabled ? 'yes' : `no (${a.disabled?.reason})`,
        inputs: a.inputs.map((i: any) => `${i.key}${i.required ? '*' : ''}:${i.kind}`).join(' ') || '-',
      })),
      ['key', 'label', 'actor', 'enabled', 'inputs'],
    );
    this.log('Timers');
    this.table(
      flow.timers.map((t: any) => ({ to: t.to, kind: t.kind, status: t.status, due: t.dueAt ?? `paused, ${t.remainingSeconds}s left` })),
      ['to', 'kind', 'status', 'due'],
    );
  }
}

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
