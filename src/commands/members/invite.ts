import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class MembersInvite extends ApiCommand<typeof MembersInvite> {
  static override summary = 'Invite an e-mail into the store with a role; its account joins when it accepts the mailed invitation (7 days)';
  static override description = 'Store-platform OWNER or ADMIN logins only (svc login); only an OWNER invites an OWNER.';
  static override examples = ['<%= config.bin %> members invite --email kim@example.com --role STAFF'];
  static override flags = {
    email: Flags.string({ description: 'E-mail to invite (prompted for at a terminal)' }),
    role: Flags.string({ description: 'Role once accepted', options: ['OWNER', 'ADMIN', 'STAFF'], default: 'STAFF' }),
  };

  async run() {
    const email = this.flags.email ?? (await this.ask('email', 'E-mail to invite'));
    const invitation = await this.storeRequest('POST', '/v1/member-invitations', { body: { email, role: this.flags.role } });
    this.output(invitation, () =>
      this.log(
        `Invited ${invitation.email} as ${invitation.role} (${invitation.invitationId}); the invitation is mailed and open until ${invitation.expiresAt}.`,
      ),
    );
  }
}
