import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class MembersRevokeInvitation extends ApiCommand<typeof MembersRevokeInvitation> {
  static override summary = 'Take back a pending member invitation; its token stops working';
  static override args = { invitationId: Args.string({ required: true, description: 'Invitation id (inv_…)' }) };

  async run() {
    const invitation = await this.storeRequest('DELETE', `/v1/member-invitations/${encodeURIComponent(this.args.invitationId)}`);
    this.output(invitation, () => this.log(`Revoked the invitation of ${invitation.email} (${invitation.invitationId}).`));
  }
}
