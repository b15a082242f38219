import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { UsageError } from '../../../../src/cli/usage-error.js';
import { StorefrontCommand } from '../../../../src/cli/storefront/storefront-command.js';

export default class StorefrontDev extends StorefrontCommand<typeof StorefrontDev> {
  static override summary = "Serve the project locally with live reload, against the service's buyer API (svc dev)";
  static override description =
    'esbuild watches the project: a save rebuilds the server and client entries and open pages reload. Pages are rendered as the hosted site renders them, and the buyer API of the chosen store is passed through on the same address, so carts and test payments work. Ctrl-C stops.';
  static override examples = ['<%= config.bin %> storefront dev', '<%= config.bin %> storefront dev --port 5173 --store dev-store'];
  static override flags = {
    port: Flags.integer({ description: 'Port to listen on (0 picks a free one)', default: 5173, min: 0, max: 65535 }),
    host: Flags.string({ description: 'Address to listen on', default: '127.0.0.1' }),
  };

  async run() {
    if (!existsSync(join(this.dir, 'svc.storefront.json')))
      throw new UsageError(`${this.dir} is not a storefront project (no svc.storefront.json): run svc storefront init, or pass --dir`);
    const { startDevServer } = await import('../../../../src/cli/storefront/dev-server.js');
    const storeId = await this.storeId();
    const dev = await startDevServer({
      dir: this.dir,
      host: this.flags.host,
      port: this.flags.port,
      apiUrl: this.apiUrl,
      storeId,
      log: (line) => this.logToStderr(line),
    });
    this.output({ url: dev.url, storeId, apiUrl: this.apiUrl }, () =>
      this.log(`Shop at ${dev.url} (store ${storeId}, buyer API of ${this.apiUrl}); edit and save to reload. Ctrl-C stops.`),
    );
    await new Promise<void>((done) => {
      const stop = () => void dev.close().then(done);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  }
}
