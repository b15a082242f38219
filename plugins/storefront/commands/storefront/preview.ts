import { Args, Flags } from '@oclif/core';
import { StorefrontCommand } from '../../../../src/cli/storefront/storefront-command.js';

export default class StorefrontPreview extends StorefrontCommand<typeof StorefrontPreview> {
  static override summary = 'A one-time preview link (opens within 5 minutes; that browser is trusted for 12 hours)';
  static override description =
    'Previews show any version, published or not, also while the shop shows "coming soon"; test payments work there. Needs your own login (svc login) as OWNER or ADMIN.';
  static override examples = ['<%= config.bin %> storefront preview', '<%= config.bin %> storefront preview v4 --open'];
  static override args = { version: Args.string({ description: 'v4, or a version id (default: the published one)' }) };
  static override flags = { open: Flags.boolean({ description: 'Open the link in the browser' }) };

  async run() {
    const versionId = this.args.version ? await this.versionId(this.args.version) : undefined;
    const link = await this.storeRequest<{ url: string; versionId: string; expiresAt: string }>('POST', '/v1/storefront/site/preview-link', {
      body: versionId ? { versionId } : {},
    });
    if (this.flags.open) {
      const { execa } = await import('execa');
      const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
      await execa(opener, [link.url], { detached: true, stdio: 'ignore', reject: false, timeout: 5000 }).catch(() => undefined);
    }
    this.output(link, () => this.log(`${link.url}\n(opens once, until ${link.expiresAt})`));
  }
}
