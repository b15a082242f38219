import { Args, type Command } from '@oclif/core';
import { ApiCommand } from './api-command.js';

/** Base of the `svc claims` commands that act on one claim: post a step, print where the claim stands. */
export abstract class ClaimCommand<T extends typeof Command> extends ApiCommand<T> {
  static override args = { claimId: Args.string({ required: true, description: 'Claim id (clm_…)' }) };

  protected get claimPath() {
    return `/v1/claims/${encodeURIComponent((this.args as { claimId: string }).claimId)}`;
  }

  protected printClaim(c: any) {
    const money = (n: number | null) => (n === null ? '-' : `${n.toLocaleString('ko-KR')}원`);
    this.log(`${c.claimId} · #${c.claimNo} · ${c.claimType} ${c.quantity} · ${c.status}${c.approved ? ' (approved)' : ''} · reason ${c.reason}`);
    this.log(
      `refund ${money(c.refundAmount)} (points ${money(c.pointRefundAmount)}) · shipping refund ${money(c.deliveryFeeRefundAmount)} · charge ${money(c.deliveryFeeChargeAmount)} · deduction ${money(c.deductAmount)}${c.refundStatus ? ` · refund ${c.refundStatus}` : ''}`,
    );
  }

  protected async step(path: string, body?: Record<string, unknown>) {
    const claim = await this.storeRequest('POST', `${this.claimPath}/${path}`, body === undefined ? {} : { body });
    this.output(claim, () => this.printClaim(claim));
  }
}
