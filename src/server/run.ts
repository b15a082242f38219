import cluster from 'node:cluster';
import { PgConnectError } from '../db/pg/errors.js';
import type { RunningService, StartOptions } from './main.js';

/** What a worker tells its supervisor once it listens, or that its start failed. */
export type WorkerReport = { event: 'ready'; readyLine: Record<string, unknown>; details: string[] } | { event: 'error'; code: string; message: string };

/** A start that failed for a reason the person can fix; the command prints it and exits 1. */
export class StartFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs the service in the foreground until Ctrl-C / SIGTERM, then shuts down cleanly (open requests
 * finish, the database is checkpointed and closed). With `json`, stdout gets exactly one line: the ready
 * line, or an error line (`{"event":"error","code","message"}`) when the start fails. A worker of
 * `svc serve --workers` reports both to its supervisor (src/server/cluster.ts) instead, which prints them.
 */
export async function runForeground(
  options: StartOptions & { json: boolean; onReady?: (service: RunningService) => Promise<void> },
  log: (line: string) => void,
) {
  const started = performance.now();
  const { DataDirInUseError, describeDatabase } = await import('../db/client.js');
  const { PortInUseError, startService } = await import('./main.js');
  const { appBaseUrl } = await import('../modules/apps/index.js');
  const { sitesLine, sellerSandboxLine } = await import('../modules/storefront/index.js');
  let service: RunningService;
  try {
    service = await startService(options);
  } catch (error) {
    const failure =
      error instanceof PortInUseError
        ? new StartFailure(
            'PORT_IN_USE',
            `${error.message} (another svc dev?): stop it, or ${options.mode === 'dev' ? 'pass --port 0 to pick a free port' : 'set SVC_PORT to a free port'}`,
          )
        : error instanceof DataDirInUseError
          ? new StartFailure('DATA_DIR_IN_USE', error.message)
          : error instanceof PgConnectError
            ? new StartFailure(
                'DATABASE_UNAVAILABLE',
                `PostgreSQL refused the connection: ${error.message}: check --database-url (SVC_DATABASE_URL) and that the server is up`,
              )
            : null;
    if (!failure) throw error;
    if (cluster.isWorker) report({ event: 'error', code: failure.code, message: failure.message });
    else if (options.json) process.stdout.write(`${JSON.stringify({ event: 'error', code: failure.code, message: failure.message })}\n`);
    throw failure;
  }
  // Listening before the ready line: a script that signals as soon as it reads the line gets a clean stop.
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    const stop = async () => {
      // A second Ctrl-C ends a lone service at once. A worker hears Ctrl-C together with its supervisor,
      // which then asks it to stop as well: that is the same stop.
      if (!cluster.isWorker) {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
      if (stopping) return;
      stopping = true;
      await service.close();
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const { urls } = service.services;
  const readyLine = {
    event: 'ready',
    url: service.url,
    adminBaseUrl: urls.admin,
    storefrontBaseUrl: urls.storefront,
    authUrl: urls.auth,
    storeId: service.seeded?.storeId ?? null,
    ownerToken: service.seeded?.ownerToken ?? null,
  };
  const details = [
    ...(service.consoleUrl ? [`  console        ${service.consoleUrl}`] : []),
    `  admin API      ${urls.admin}`,
    `  buyer API      ${urls.storefront}`,
    `  auth server    ${urls.auth}`,
    `  OpenAPI        ${urls.admin}/openapi.json`,
    `  apps           ${appBaseUrl(service.services, '{handle}') ?? 'not served (set SVC_APPS_HOST or --apps-host)'}`,
    ...sitesLine(service.services),
    // A deployment's operator must see whether seller code is contained; svc dev says so when it first runs some.
    ...(options.mode === 'serve' ? [sellerSandboxLine(service.services.config.storefront.sellerSandbox)] : []),
    `  database       ${describeDatabase(service.services.db)}`,
    ...(service.tlsPort !== null ? [`  https          port ${service.tlsPort} (custom domains: their issued certificates by SNI)`] : []),
    ...(service.seeded
      ? [`  seeded store   Dev Store (${service.seeded.storeId})  login dev@svc.local / svc-dev-password`, `  clock          ${service.services.clock.kind}`]
      : []),
  ];
  if (cluster.isWorker) report({ event: 'ready', readyLine, details });
  else if (options.json) process.stdout.write(`${JSON.stringify(readyLine)}\n`);
  else printBanner(log, `svc ${options.mode === 'dev' ? 'dev' : 'serve'} ready in ${Math.round(performance.now() - started)} ms at ${service.url}`, details);
  await options.onReady?.(service);
  await stopped;
  // The channel to the supervisor would keep a worker alive after its service closed.
  if (cluster.isWorker) cluster.worker!.disconnect();
}

/** The human start banner: the ready line, what is where, how to stop. */
export function printBanner(log: (line: string) => void, ready: string, details: string[]) {
  log(ready);
  for (const line of details) log(line);
  log('Press Ctrl-C to stop.');
}

function report(message: WorkerReport) {
  process.send!(message);
}
