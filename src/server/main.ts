import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { toNodeHandler } from 'h3/node';
import { manualClock, systemClock } from '../db/clock.js';
import { openDatabase } from '../db/client.js';
import { loadSigningKeys } from '../modules/accounts/keys.js';
import { createApp } from './app.js';
import { startJobLoop } from './jobs.js';
import { modules, operations } from './modules.js';
import { seedDevStore } from './seed.js';
import { serviceUrls, type ServiceConfig, type Services } from './services.js';

export interface StartOptions {
  port: number;
  host: string;
  dataDir: string;
  mode: 'dev' | 'serve';
  clock?: 'system' | 'manual';
  seed?: boolean;
  /** The address clients use, when it differs from the listening one (svc serve behind a proxy). */
  publicUrl?: string;
  unsafeWebhookHosts?: string[];
}

export interface RunningService {
  url: string;
  services: Services;
  seeded: { storeId: string; ownerToken: string } | null;
  close(): Promise<void>;
}

/** Starts the whole service: database (migrated), keys, HTTP server, job loop, and the dev seed. */
export async function startService(options: StartOptions): Promise<RunningService> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const database = openDatabase(resolve(dataDir, 'svc.db'));
  const keys = await loadSigningKeys(dataDir);

  // The handler is bound once the port is known: the origin is part of every token's issuer.
  let handle: ReturnType<typeof toNodeHandler> | null = null;
  const server = createServer((req, res) => handle!(req, res));
  await new Promise<void>((ok, ko) => {
    server.once('error', ko);
    server.listen(options.port, options.host, () => ok());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const origin = (options.publicUrl ?? `http://${host}:${port}`).replace(/\/$/, '');

  const config: ServiceConfig = { origin, dataDir, mode: options.mode, unsafeWebhookHosts: options.unsafeWebhookHosts ?? [] };
  const services: Services = {
    config,
    db: database.db,
    sqlite: database.sqlite,
    clock: options.clock === 'manual' ? manualClock() : systemClock(),
    keys,
    modules,
    operations,
    urls: serviceUrls(origin),
  };
  handle = toNodeHandler(createApp(services));
  const seeded = options.mode === 'dev' && options.seed !== false ? await seedDevStore(services) : null;
  const stopJobs = startJobLoop(services);

  let closing: Promise<void> | null = null;
  return {
    url: origin,
    services,
    seeded,
    close() {
      closing ??= new Promise<void>((done) => {
        stopJobs();
        server.close(async () => {
          // After the last request: module resources (the app runtime worker) may be in use until then.
          await Promise.all(modules.map((m) => m.onClose?.(services)));
          database.close();
          done();
        });
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
      return closing;
    },
  };
}
