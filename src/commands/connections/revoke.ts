import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class ConnectionsRevoke extends ApiCommand<typeof ConnectionsRevoke> {
  static override summary = 'Disconnect an app: its refresh tokens are erased and its login tokens refused within 2 minutes';
  static override args = { clientId: Args.string({ required: true, description: 'Client id, as `svc connections list` shows it' }) };

  async run() {
    const connection = await this.request('DELETE', `/auth/v1/connections/${encodeURIComponent(this.args.clientId)}`);
    this.output(connection, () => this.log(`Disconnected ${connection.clientName} (${connection.clientId}).`));
  }
}
