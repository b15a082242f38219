import { ApiCommand } from '../../cli/api-command.js';

export default class MembersInvitations extends ApiCommand<typeof MembersInvitations> {
  static override summary = "List the store's pending member invitations (not accepted, revoked or expired)";

  async run() {
    const data = await this.storeRequest('GET', '/v1/member-invitations');
    this.outputList(data, (contents: any[]) => this.table(contents, ['invitationId', 'email', 'role', 'status', 'expiresAt']));
  }
}
