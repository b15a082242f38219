import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../cli/api-command.js';
import { UsageError } from '../cli/usage-error.js';

export default class Api extends ApiCommand<typeof Api> {
  static override summary = 'Call any API operation: svc api METHOD PATH';
  static override description = 'PATH is relative to the service root (/v1/…, /storefront/v1/…, /auth/v1/…). X-Store-Id is sent for /v1 paths when a store is chosen. The full operation list is at GET /v1/openapi.json.';
  static override examples = [
    '<%= config.bin %> api GET /v1/store --store dev-store',
    '<%= config.bin %> api PATCH /v1/store --data \'{"guestCheckout":false}\' --dry-run',
    '<%= config.bin %> api GET /v1/audit-logs --query limit=5 --query outcome=DENIED --json',
    '<%= config.bin %> api POST /v1/members --data @member.json --idempotency-key add-kim',
  ];
  static override args = {
    method: Args.string({ required: true, options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'get', 'post', 'put', 'patch', 'delete'] }),
    path: Args.string({ required: true, description: 'e.g. /v1/store' }),
  };
  static override flags = {
    data: Flags.string({ char: 'd', description: 'JSON body, or @file.json' }),
    query: Flags.string({ char: 'q', description: 'Query parameter k=v', multiple: true }),
    'idempotency-key': Flags.string({ description: 'Idempotency-Key header' }),
    'dry-run': Flags.boolean({ description: 'Validate and preview without executing (x-svc-dry-run: 1)' }),
  };

  async run() {
    const method = this.args.method.toUpperCase();
    const query: Record<string, string> = {};
    for (const pair of this.flags.query ?? []) {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError(`--query takes k=v, got "${pair}"`);
      query[pair.slice(0, at)] = pair.slice(at + 1);
    }
    const path = this.args.path.startsWith('/') ? this.args.path : `/${this.args.path}`;
    const wantsStore = path.startsWith('/v1/') && !path.startsWith('/v1/me/') && !path.startsWith('/v1/public/');
    const hasStore = Boolean(this.flags.store ?? process.env.SVC_STORE_ID);
    const envelope = await this.client.request(method, path, {
      query,
      body: this.flags.data === undefined ? undefined : this.readJsonInput(this.flags.data),
      storeId: wantsStore && (hasStore || (await this.profileHasStore())) ? await this.storeId() : undefined,
      idempotencyKey: this.flags['idempotency-key'],
      dryRun: this.flags['dry-run'],
    });
    this.output(envelope.data, () => {
      if (envelope.meta.code !== 'OK') this.logToStderr(`${envelope.meta.code}: ${envelope.meta.message}`);
      this.log(JSON.stringify(envelope.data, null, 2));
    });
  }

  private async profileHasStore() {
    const { readConfig } = await import('../client/config.js');
    return Boolean(readConfig().profiles[this.profileName]?.storeId);
  }
}
