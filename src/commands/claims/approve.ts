import { Flags } from '@oclif/core';
import { ClaimCommand } from '../../cli/claims.js';

export default class ClaimsApprove extends ClaimCommand<typeof ClaimsApprove> {
  static override summary = 'Approve a requested claim: a cancel refunds now, a return or exchange waits for the pickup';
  static override examples = ['<%= config.bin %> claims approve clm_…', '<%= config.bin %> claims approve clm_… --deduct 1000 --shipping-charge 0 --json'];
  static override flags = {
    deduct: Flags.integer({ min: 0, description: 'Extra deduction (cancel fee), in won' }),
    'shipping-charge': Flags.integer({ min: 0, description: "Return or exchange shipping to charge, instead of the refund policy's" }),
  };

  async run() {
    await this.step('approve', { deductAmount: this.flags.deduct, deliveryFeeChargeAmount: this.flags['shipping-charge'] });
  }
}
