import { Flags } from '@oclif/core';
import { ClaimCommand } from '../../cli/claims.js';

export default class ClaimsReject extends ClaimCommand<typeof ClaimsReject> {
  static override summary = 'Reject a claim; the item goes on in its order flow';
  static override examples = ['<%= config.bin %> claims reject clm_… --reason "사용 흔적이 있습니다"'];
  static override flags = { reason: Flags.string({ required: true, description: 'Why, for the buyer' }) };

  async run() {
    await this.step('reject', { reason: this.flags.reason });
  }
}
