import { StorefrontCommand } from '../../../../src/cli/storefront/storefront-command.js';

export default class StorefrontVersions extends StorefrontCommand<typeof StorefrontVersions> {
  static override summary = "The site's versions, newest first (* marks the published one)";
  static override examples = ['<%= config.bin %> storefront versions', '<%= config.bin %> storefront versions --json'];

  async run() {
    const contents = await this.versions();
    this.outputList({ contents }, (rows) =>
      this.table(
        rows.map((v) => ({
          ...v,
          number: `${v.published ? '*' : ' '}${v.number}`,
          serverBundle: `${(v.sizes.serverBundle / 1024).toFixed(1)} KiB`,
          static: `${(v.sizes.static / 1024).toFixed(1)} KiB`,
        })),
        ['number', 'versionId', 'templateVersion', 'serverBundle', 'static', 'createdAt'],
      ),
    );
  }
}
