import { Command, Flags } from '@oclif/core';

export default class Dev extends Command {
  static override summary = 'Run the whole commerce service locally: admin and buyer APIs, auth server, payments sandbox, webhooks, apps, storefront.';
  static override description =
    'One process, one port, one SQLite file in --data-dir. Builds of hosted sites install from SVC_NPM_REGISTRY (default: your npm configuration) and check SVC_ADVISORY_SOURCE (default: the snapshot shipped with svc). The first start seeds dev@svc.local / svc-dev-password, OWNER of "Dev Store".';
  static override examples = ['<%= config.bin %> dev', '<%= config.bin %> dev --port 0 --data-dir /tmp/svc --clock manual --json'];

  static override flags = {
    port: Flags.integer({ description: 'Port to listen on (0 picks a free one)', default: 8787, min: 0, max: 65535 }),
    host: Flags.string({ description: 'Address to listen on', default: '127.0.0.1' }),
    'data-dir': Flags.string({ description: 'Folder holding the database and keys', default: '.svc' }),
    clock: Flags.option({
      options: ['system', 'manual'] as const,
      description: 'manual: time moves only by POST /_dev/v1/clock/advance',
      default: 'system' as const,
    })(),
    json: Flags.boolean({ description: 'Print one JSON ready line on stdout and nothing else' }),
    open: Flags.boolean({ description: 'Open the console (/console/) in the browser once ready' }),
    seed: Flags.boolean({ description: 'Seed the dev account, store and samples on first start', default: true, allowNo: true }),
    'unsafe-allow-webhook-hosts': Flags.string({
      description: 'Comma-separated exact hosts exempt from the https and blocked-address webhook rules (e.g. 127.0.0.1,localhost)',
      default: '',
    }),
  };

  async run() {
    const { flags } = await this.parse(Dev);
    const { runForeground } = await import('../server/run.js');
    const { storefrontFromEnv } = await import('../server/services.js');
    await runForeground(
      {
        mode: 'dev',
        port: flags.port,
        host: flags.host,
        dataDir: flags['data-dir'],
        clock: flags.clock,
        seed: flags.seed,
        storefront: storefrontFromEnv(process.env, 'dev'),
        json: flags.json,
        onReady: flags.open ? async (service) => void (await import('../cli/open-browser.js')).openBrowser(service.consoleUrl ?? service.url) : undefined,
        unsafeWebhookHosts: flags['unsafe-allow-webhook-hosts']
          .split(',')
          .map((h) => h.trim())
          .filter(Boolean),
      },
      (line) => this.log(line),
    );
  }
}
