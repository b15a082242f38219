import { Flags } from '@oclif/core';
import { UsageError } from '../../../../src/cli/usage-error.js';
import { AppCommand } from '../../../../src/cli/app/app-command.js';

export default class AppSettings extends AppCommand<typeof AppSettings> {
  static override summary = "Show or change the app's settings in a store (secret ones show their first 4 characters)";
  static override examples = ['<%= config.bin %> app settings', '<%= config.bin %> app settings --set greeting=반가워요 --unset region'];
  static override flags = {
    set: Flags.string({ description: 'KEY=VALUE (repeatable); numbers and booleans as the manifest declares them', multiple: true, default: [] }),
    unset: Flags.string({ description: 'KEY to clear (repeatable)', multiple: true, default: [] }),
  };

  async run() {
    const { manifest } = this.project();
    const inst = await this.installationOf(manifest.handle);
    if (!inst) throw new UsageError('the app is not installed in this store: run svc app install');
    const declared = manifest.settings ?? {};
    const patch: Record<string, string | number | boolean | null> = {};
    for (const pair of this.flags.set) {
      const eq = pair.indexOf('=');
      if (eq < 1) throw new UsageError(`--set takes KEY=VALUE, got "${pair}"`);
      const key = pair.slice(0, eq);
      const raw = pair.slice(eq + 1);
      const type = declared[key]?.type;
      if (type === 'number' && !Number.isFinite(Number(raw))) throw new UsageError(`${key} is a number`);
      if (type === 'boolean' && raw !== 'true' && raw !== 'false') throw new UsageError(`${key} is true or false`);
      // Undeclared keys go as text: the service names them in its refusal.
      patch[key] = type === 'number' ? Number(raw) : type === 'boolean' ? raw === 'true' : raw;
    }
    for (const key of this.flags.unset) patch[key] = null;
    const view = Object.keys(patch).length
      ? await this.storeRequest<{ settings: Record<string, unknown>; missingSettings: string[] }>(
          'PUT',
          `/v1/apps/installations/${inst.installationId}/settings`,
          { body: { settings: patch } },
        )
      : inst;
    this.output(view.settings, () => {
      this.table(
        Object.entries(view.settings).map(([key, value]) => ({ key, value, label: declared[key]?.label ?? '' })),
        ['key', 'value', 'label'],
      );
      if (view.missingSettings.length) this.log(`Required and empty (deliveries wait): ${view.missingSettings.join(', ')}`);
    });
  }
}
