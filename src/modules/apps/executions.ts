// Runs of app code: recording each (and suspending an app that keeps failing), how they read, pruning old ones.
import { and, desc, eq, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import { transaction, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { findApp, type App, type Installation } from './app-records.js';
import { suspendApp } from './app-suspension.js';
import { missingSettings } from './app-settings.js';
import type { Manifest } from '../../kernel/app-manifest.js';
import { appExecutions, apps, type ExecutionKind, type ExecutionStatus } from './schema.js';

const SUSPEND_AFTER_MS = 24 * 3600_000;
const EXECUTION_RETENTION_MS = 7 * 86_400_000;

export async function pruneExecutions(services: Services, now: number): Promise<number> {
  return (
    await services.db
      .delete(appExecutions)
      .where(lte(appExecutions.createdAt, now - EXECUTION_RETENTION_MS))
      .run()
  ).changes;
}

export interface ExecutionRecord {
  app: App;
  installation: Installation;
  kind: ExecutionKind;
  name: string;
  status: ExecutionStatus;
  /** Set when the app's own code failed (thrown, limits); decides suspension. */
  appError?: boolean;
  errorCode?: string | null;
  errorMessage?: string | null;
  logs?: string[];
  durationMs?: number;
}

/**
 * Whether an app can be called now: a suspended app, or one whose required settings are empty, is not
 * called; the run is recorded as such and the reason returned (null when the app can run).
 */
export async function recordIfNotRunnable(
  services: Services,
  t: Pick<ExecutionRecord, 'app' | 'installation'> & { version: { manifest: Manifest } },
  kind: ExecutionKind,
  name: string,
  now: number,
): Promise<'APP_SUSPENDED' | 'SETTINGS_REQUIRED' | null> {
  const missing = missingSettings(t.version.manifest, t.installation.settings);
  if (!t.app.suspendedAt && missing.length === 0) return null;
  const suspended = Boolean(t.app.suspendedAt);
  await recordExecution(
    services,
    {
      app: t.app,
      installation: t.installation,
      kind,
      name,
      status: suspended ? 'NOT_SENT' : 'NEEDS_SETUP',
      errorCode: suspended ? 'APP_SUSPENDED' : 'SETTINGS_REQUIRED',
      errorMessage: suspended ? null : `required settings empty: ${missing.join(', ')}`,
    },
    now,
  );
  return suspended ? 'APP_SUSPENDED' : 'SETTINGS_REQUIRED';
}

/**
 * Records one run and keeps the failure record of spec 02 §3: an app whose calls have all failed as app
 * errors for 24 hours is suspended; any success clears the run of failures.
 */
export async function recordExecution(services: Services, r: ExecutionRecord, now: number) {
  const { db } = services;
  await transaction(services.db, async () => {
    await db
      .insert(appExecutions)
      .values({
        id: newId('appx', now),
        appId: r.app.id,
        installationId: r.installation.id,
        storeId: r.installation.storeId,
        kind: r.kind,
        name: r.name,
        status: r.status,
        errorCode: r.errorCode ?? null,
        errorMessage: r.errorMessage ?? null,
        logs: r.logs ?? [],
        durationMs: Math.round(r.durationMs ?? 0),
        createdAt: now,
      })
      .run();
    if (r.status === 'SUCCEEDED') {
      await db
        .update(apps)
        .set({ failingSince: null })
        .where(and(eq(apps.id, r.app.id), sql`${apps.failingSince} is not null`))
        .run();
    } else if (r.appError) {
      const app = (await findApp(db, r.app.id))!;
      if (app.failingSince === null) await db.update(apps).set({ failingSince: now }).where(eq(apps.id, app.id)).run();
      else if (app.suspendedAt === null && now - app.failingSince >= SUSPEND_AFTER_MS) await suspendApp(db, app, app.failingSince, r, now);
    }
  });
}

/** One run of app code, or a delivery that did not run (kept 7 days). */
export const executionView = z.object({
  executionId: z.string(),
  installationId: z.string(),
  kind: z.enum(['TOOL', 'NOTIFICATION', 'SCHEDULE', 'HTTP', 'EVENT']),
  name: z.string(),
  status: z.enum(['SUCCEEDED', 'FAILED', 'NEEDS_SETUP', 'NOT_SENT']).describe('NEEDS_SETUP: not run because a required setting is empty.'),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  logs: z.array(z.string()).describe('`<level>: <message>` lines the code logged.'),
  durationMs: z.number().int(),
  createdAt: instant,
});

export function presentExecution(x: typeof appExecutions.$inferSelect) {
  return {
    executionId: x.id,
    installationId: x.installationId,
    kind: x.kind,
    name: x.name,
    status: x.status,
    errorCode: x.errorCode,
    errorMessage: x.errorMessage,
    logs: x.logs,
    durationMs: x.durationMs,
    createdAt: isoAt(x.createdAt),
  };
}

export function recentExecutions(db: Db, installationId: string, limit: number) {
  return db.select().from(appExecutions).where(eq(appExecutions.installationId, installationId)).orderBy(desc(appExecutions.id)).limit(limit).all();
}
