import { ApiCommand } from '../cli/api-command.js';

export default class Whoami extends ApiCommand<typeof Whoami> {
  static override summary = 'Show the account and token of the current profile';

  async run() {
    const me = await this.request('GET', '/auth/v1/me');
    const result = { profile: this.profileName, apiUrl: this.client.apiUrl, ...me };
    this.output(result, () => {
      this.log(`${me.name} <${me.email}> (${me.userId})`);
      this.log(`profile ${this.profileName} → ${this.client.apiUrl}`);
      const t = me.token;
      this.log(`token: ${t.kind}${t.clientId ? ` via ${t.clientId}` : ''}; scopes ${t.scopes === null ? 'all (store platform)' : t.scopes.join(', ')}; stores ${t.storeScope.all ? 'all' : t.storeScope.storeIds.join(', ')}${t.agent ? '; AI agent' : ''}`);
    });
  }
}
