import { AppCommand } from '../../../../src/cli/app/app-command.js';

export default class AppInstall extends AppCommand<typeof AppInstall> {
  static override summary = "Install the app's latest version in a store (consenting to what it asks), or consent to its pending version";
  static override description = 'Needs a store-platform login (svc login) as OWNER or ADMIN; an ADMIN cannot grant scopes above ADMIN (settlement:r).';
  static override examples = ['<%= config.bin %> app install', '<%= config.bin %> app install --store dev-store'];

  async run() {
    const { manifest } = this.project();
    const inst = await this.installApp(manifest.handle);
    this.output(inst, () => {
      this.log(`Installed ${inst.app.handle} version ${inst.version} (installation ${inst.installationId}).`);
      this.log(`  scopes   ${inst.permissions.scopes.join(', ') || '(none)'}`);
      if (inst.permissions.hosts.length) this.log(`  hosts    ${inst.permissions.hosts.join(', ')}`);
      if (inst.tools.length) this.log(`  tools    ${inst.tools.map((t) => t.name).join(', ')}  (svc app tools call NAME --input '{…}')`);
      if (inst.needsSetup) this.log(`  needs settings: ${inst.missingSettings.join(', ')} (svc app settings --set KEY=VALUE)`);
    });
  }
}
