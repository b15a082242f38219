import { siteAddress, StorefrontCommand } from '../../../../src/cli/storefront/storefront-command.js';

export default class StorefrontStatus extends StorefrontCommand<typeof StorefrontStatus> {
  static override summary = 'The site: address, visibility, published version, provisioning and its deployment';
  static override examples = ['<%= config.bin %> storefront status', '<%= config.bin %> storefront status --json'];

  async run() {
    const site = await this.site();
    if (!site.siteId) {
      this.output(site, () => this.log(site.enabled ? 'No site yet: svc storefront deploy creates one.' : 'Site creation is not open on this service.'));
      return;
    }
    const [deployment, versions] = await Promise.all([this.storeRequest('GET', '/v1/storefront/site/deployment'), this.versions()]);
    const published = versions.find((v) => v.versionId === site.publishedVersionId);
    this.output({ ...site, deployment }, () => {
      this.log(`${siteAddress(site)}  ${site.status} · ${site.visibility}`);
      this.log(`published  ${published ? `${published.number} (${published.versionId})` : '-'} · provisioning ${site.provisioning?.status}`);
      this.log(`template   ${site.templateId} ${site.templateVersion ?? ''}`);
      this.log(
        `deployment ${deployment.status}${deployment.errorCode ? ` ${deployment.errorCode}` : ''} · ${deployment.steps.map((s: { name: string; status: string }) => `${s.name} ${s.status}`).join(' → ')}`,
      );
    });
  }
}
