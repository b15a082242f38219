import { ApiCommand } from '../cli/api-command.js';
import { ApiClient } from '../client/api-client.js';
import { readCredential, writeCredential } from '../client/config.js';

export default class Logout extends ApiCommand<typeof Logout> {
  static override summary = "End the profile's login and forget its saved credential";

  async run() {
    const credential = readCredential(this.profileName);
    // Revoking ends the session at the service the login came from; the local file is cleared even if that
    // service is unreachable.
    if (credential?.kind === 'login') {
      const client = new ApiClient({ apiUrl: credential.apiUrl ?? this.apiUrl, profile: this.profileName });
      await client.oauth('/auth/revoke', { token: credential.refreshToken, client_id: credential.clientId }).catch(() => undefined);
    }
    writeCredential(this.profileName, undefined);
    this.output({ loggedOut: true, profile: this.profileName }, () =>
      this.log(credential ? `Logged out of profile ${this.profileName}.` : `Profile ${this.profileName} had no saved credential.`),
    );
  }
}
