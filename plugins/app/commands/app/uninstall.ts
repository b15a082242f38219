import { UsageError } from '../../../../src/cli/usage-error.js';
import { AppCommand } from '../../../../src/cli/app/app-command.js';

export default class AppUninstall extends AppCommand<typeof AppUninstall> {
  static override summary = 'Uninstall the app from a store: access ends at once, settings and storage are erased 48 hours later';
  static override examples = ['<%= config.bin %> app uninstall --store dev-store'];

  async run() {
    const { manifest } = this.project();
    const inst = await this.installationOf(manifest.handle);
    if (!inst) throw new UsageError('the app is not installed in this store');
    const ended = await this.storeRequest<{ installationId: string; eraseAt: string }>('DELETE', `/v1/apps/installations/${inst.installationId}`);
    this.output(ended, () => this.log(`Uninstalled ${manifest.handle} (${ended.installationId}); its settings and storage are erased at ${ended.eraseAt}.`));
  }
}
