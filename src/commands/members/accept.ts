import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class MembersAccept extends ApiCommand<typeof MembersAccept> {
  static override summary = "Accept a store's member invitation with the token from its mail, logged in as the invited e-mail's account";
  static override examples = ['<%= config.bin %> members accept <token from the mail>'];
  static override args = { token: Args.string({ required: true, description: 'The token in the invitation mail' }) };

  async run() {
    const member = await this.request('POST', '/auth/v1/member-invitations/accept', { body: { token: this.args.token } });
    this.output(member, () => this.log(`You are now ${member.role} of store ${member.storeId} (${member.memberId}).`));
  }
}
