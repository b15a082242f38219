import { Flags } from '@oclif/core';
import { UsageError } from '../../../../src/cli/usage-error.js';
import { AppCommand } from '../../../../src/cli/app/app-command.js';

interface PublishedApp {
  appId: string;
  handle: string;
  visibility: string;
  allowedStoreIds: string[];
}

export default class AppPublish extends AppCommand<typeof AppPublish> {
  static override summary = 'Publish the app: privately to stores you name, or publicly to every store';
  static override description = [
    'A new app is in development: it installs only in stores you are a member of.',
    'private: it also installs in the stores named by --stores (ids or codes); run again to change the list.',
    'public: any store may install it. Public is for good: it cannot be made private again.',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> app publish --visibility private --stores client-store',
    '<%= config.bin %> app publish --visibility public --profile prod',
  ];
  static override flags = {
    visibility: Flags.string({ description: 'Who may install the app', options: ['private', 'public'], required: true }),
    stores: Flags.string({ description: 'Comma-separated store ids or codes a private app installs in' }),
  };

  async run() {
    const { manifest } = this.project();
    const visibility = this.flags.visibility.toUpperCase();
    const stores = (this.flags.stores ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (visibility === 'PRIVATE' && stores.length === 0) throw new UsageError('--stores: name the stores a private app installs in (ids or codes)');
    if (visibility === 'PUBLIC' && stores.length) throw new UsageError('--stores: a public app installs in every store; leave --stores out');
    const appId = await this.appIdOf(manifest.handle);
    if (!appId) throw new UsageError(`${manifest.handle} was never deployed: run svc app deploy first`);
    const app = await this.request<PublishedApp>('PUT', `/v1/developer/apps/${appId}/visibility`, {
      body: visibility === 'PRIVATE' ? { visibility, stores } : { visibility },
    });
    this.output(app, () =>
      this.log(
        app.visibility === 'PUBLIC'
          ? `${app.handle} is PUBLIC: any store may install it.`
          : `${app.handle} is PRIVATE: it installs in ${app.allowedStoreIds.join(', ')} and in your own stores.`,
      ),
    );
  }
}
