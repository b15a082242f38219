import { Command, Flags } from '@oclif/core';

export default class Serve extends Command {
  static override summary = 'Run the service for a deployment (no /_dev helpers, no seed); configured from the environment.';
  static override description = [
    'Environment: SVC_PORT (8787), SVC_HOST (0.0.0.0), SVC_DATA_DIR (./data), SVC_PUBLIC_URL (the address clients use, e.g.',
    'https://api.example.com), SVC_TRUST_PROXY=1 (behind a reverse proxy: client addresses from X-Forwarded-For), SVC_APPS_HOST (or --apps-host).',
    'PostgreSQL (--database-url): SVC_PG_POOL_SIZE (connections per process, default 10), SVC_PG_WRITERS (transactions of a process at once, default 2).',
    'Hosted storefront: SVC_STOREFRONT_HOSTING=1 (site creation open), SVC_SITES_DOMAIN (each site at {slug}.{domain}, an origin of its own; unset: sites only on connected custom domains), SVC_NPM_REGISTRY, SVC_ADVISORY_SOURCE (OSV directory, zip or URL), SVC_DEPENDENCY_DENYLIST.',
    'Custom domains: SVC_CUSTOM_DOMAINS=1, SVC_DNS_SERVERS, SVC_DOMAIN_TARGET, SVC_ACME_DIRECTORY (certificates from this ACME directory, e.g.',
    'https://acme-v02.api.letsencrypt.org/directory) and SVC_ACME_EMAIL.',
    "HTTPS: SVC_TLS_PORT with SVC_TLS_CERT and SVC_TLS_KEY (the service's own certificate and key, PEM files); connected custom domains are served their issued certificates.",
    'Operator API (svc operator …): SVC_OPERATOR_TOKEN, a secret of at least 32 characters.',
  ].join(' ');

  static override flags = {
    json: Flags.boolean({ description: 'Print one JSON ready line on stdout' }),
    'database-url': Flags.string({
      env: 'SVC_DATABASE_URL',
      description:
        'PostgreSQL (16 or newer) to run on, e.g. postgres://user:pass@db.example.com:5432/svc?sslmode=require (a managed PostgreSQL works); without it the SQLite file in the data dir',
    }),
    'unsafe-allow-webhook-hosts': Flags.string({
      env: 'SVC_UNSAFE_ALLOW_WEBHOOK_HOSTS',
      default: '',
      description: 'Comma-separated exact hosts exempt from the https and blocked-address webhook rules (test rigs only)',
    }),
    workers: Flags.integer({
      env: 'SVC_WORKERS',
      min: 1,
      max: 64,
      default: 1,
      description:
        'Processes that share the port, the database and the work, supervised by this one (a dead one is started again); PostgreSQL only, as the SQLite file takes one process. One per core is a good start.',
    }),
    console: Flags.boolean({
      description: 'Serve the console, the web screen on the public API, at /console/ (env SVC_CONSOLE=1)',
      default: process.env.SVC_CONSOLE === '1' || process.env.SVC_CONSOLE === 'true',
    }),
    'apps-host': Flags.string({
      env: 'SVC_APPS_HOST',
      description:
        'Host under which each app gets its own, {handle}.{apps-host} (e.g. apps.example.com, with wildcard DNS); without it app routes and admin pages are not served',
    }),
  };

  async run() {
    const { flags } = await this.parse(Serve);
    const env = process.env;
    if (flags.workers > 1 && !flags['database-url'])
      this.error('--workers needs PostgreSQL (--database-url): the SQLite file in the data dir takes one process.', { exit: 2 });
    const { default: cluster } = await import('node:cluster');
    if (flags.workers > 1 && cluster.isPrimary) {
      const { superviseWorkers } = await import('../server/cluster.js');
      return superviseWorkers(flags.workers, { json: flags.json }, (line) => this.log(line));
    }
    const { runForeground } = await import('../server/run.js');
    const { storefrontFromEnv } = await import('../server/services.js');
    if (env.SVC_TLS_PORT && !(env.SVC_TLS_CERT && env.SVC_TLS_KEY))
      this.error("SVC_TLS_PORT needs SVC_TLS_CERT and SVC_TLS_KEY: the service's own certificate and private key as PEM files.", { exit: 2 });
    await runForeground(
      {
        mode: 'serve',
        port: Number(env.SVC_PORT ?? 8787),
        host: env.SVC_HOST ?? '0.0.0.0',
        dataDir: env.SVC_DATA_DIR ?? './data',
        publicUrl: env.SVC_PUBLIC_URL,
        trustProxy: env.SVC_TRUST_PROXY === '1' || env.SVC_TRUST_PROXY === 'true',
        appsHost: flags['apps-host'],
        databaseUrl: flags['database-url'],
        unsafeWebhookHosts: flags['unsafe-allow-webhook-hosts']
          .split(',')
          .map((h) => h.trim())
          .filter(Boolean),
        storefront: storefrontFromEnv(env, 'serve'),
        tls: env.SVC_TLS_PORT ? { port: Number(env.SVC_TLS_PORT), certFile: env.SVC_TLS_CERT!, keyFile: env.SVC_TLS_KEY! } : undefined,
        operatorToken: env.SVC_OPERATOR_TOKEN,
        console: flags.console,
        json: flags.json,
      },
      (line) => this.log(line),
    );
  }
}
