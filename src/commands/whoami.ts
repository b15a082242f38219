import { ApiCommand } from '../cli/api-command.js';

export default class Whoami extends ApiCommand<typeof Whoami> {
  static override summary = 'Show the account and token of the current profile (or of SVC_TOKEN)';

  async run() {
    const me = await this.request('GET', '/auth/v1/me');
    const tokenFrom = this.tokenFromEnvironment ? 'SVC_TOKEN' : 'profile';
    const result = { profile: this.profileName, apiUrl: this.client.apiUrl, tokenFrom, ...me };
    this.output(result, () => {
      this.log(`${me.name} <${me.email}> (${me.userId})`);
      this.log(`profile ${this.profileName} → ${this.client.apiUrl}`);
      const t = me.token;
      const source = this.tokenFromEnvironment ? " from SVC_TOKEN (not the profile's saved credential)" : ` saved in profile ${this.profileName}`;
      this.log(
        `token: ${t.kind}${t.clientId ? ` via ${t.clientId}` : ''}${source}; scopes ${t.scopes === null ? 'all (store platform)' : t.scopes.join(', ')}; stores ${t.storeScope.all ? 'all' : t.storeScope.storeIds.join(', ')}${t.agent ? '; AI agent' : ''}`,
      );
    });
  }
}
