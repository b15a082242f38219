import type { StartOptions } from './main.js';

/**
 * Runs the service in the foreground until Ctrl-C / SIGTERM, then shuts down cleanly (open requests
 * finish, the database is checkpointed and closed). With `json`, stdout gets exactly one ready line.
 */
export async function runForeground(options: StartOptions & { json: boolean }, log: (line: string) => void) {
  const started = performance.now();
  const { startService } = await import('./main.js');
  const { appBaseUrl } = await import('../modules/apps/service.js');
  const service = await startService(options);
  const { urls } = service.services;
  if (options.json) {
    process.stdout.write(`${JSON.stringify({
      event: 'ready',
      url: service.url,
      adminBaseUrl: urls.admin,
      storefrontBaseUrl: urls.storefront,
      authUrl: urls.auth,
      storeId: service.seeded?.storeId ?? null,
      ownerToken: service.seeded?.ownerToken ?? null,
    })}\n`);
  } else {
    log(`svc ${options.mode === 'dev' ? 'dev' : 'serve'} ready in ${Math.round(performance.now() - started)} ms at ${service.url}`);
    log(`  admin API      ${urls.admin}`);
    log(`  buyer API      ${urls.storefront}`);
    log(`  auth server    ${urls.auth}`);
    log(`  OpenAPI        ${urls.admin}/openapi.json`);
    log(`  apps           ${appBaseUrl(service.services, '{handle}') ?? 'not served (set SVC_APPS_HOST or --apps-host)'}`);
    if (service.seeded) {
      log(`  seeded store   Dev Store (${service.seeded.storeId})  login dev@svc.local / svc-dev-password`);
      log(`  clock          ${service.services.clock.kind}`);
    }
    log('Press Ctrl-C to stop.');
  }
  await new Promise<void>((resolve) => {
    const stop = async () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await service.close();
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
