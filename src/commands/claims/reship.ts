import { Flags } from '@oclif/core';
import { ClaimCommand } from '../../cli/claims.js';

export default class ClaimsReship extends ClaimCommand<typeof ClaimsReship> {
  static override summary = 'Ship the exchange with its carrier and tracking number';
  static override examples = ['<%= config.bin %> claims reship clm_… --carrier CJ대한통운 --tracking-no 123456789012'];
  static override flags = {
    carrier: Flags.string({ required: true, description: 'Carrier name' }),
    'tracking-no': Flags.string({ required: true, description: 'Tracking number' }),
  };

  async run() {
    await this.step('reship', { carrier: this.flags.carrier, trackingNo: this.flags['tracking-no'] });
  }
}
