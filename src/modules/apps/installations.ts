import { and, desc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import { transaction, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail, validationFailed } from '../../server/errors.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { roleAllows } from '../accounts/scopes.js';
import { emitEvent } from '../events/outbox.js';
import type { Role } from '../stores/schema.js';
import { findMembership } from '../stores/service.js';
import { apiCallCount } from './installation-tokens.js';
import { consentSurface, consentWidening, flowParam, intervalSeconds, manifestSchema, toolInputField, type Manifest } from './manifest.js';
import {
  appDeliveries, appExecutions, appInstallations, apps, appSchedules, appStorage, appVersions,
  type AppBundle, type ExecutionKind, type ExecutionStatus, type SettingValue,
} from './schema.js';

export type App = typeof apps.$inferSelect;
export type AppVersion = typeof appVersions.$inferSelect;
export type Installation = typeof appInstallations.$inferSelect;

const ERASE_DELAY_MS = 48 * 3600_000;
const SUSPEND_AFTER_MS = 24 * 3600_000;
const EXECUTION_RETENTION_MS = 7 * 86_400_000;

export const findApp = (db: Db, appId: string) => db.select().from(apps).where(eq(apps.id, appId)).get();
export const findAppByHandle = (db: Db, handle: string) => db.select().from(apps).where(eq(apps.handle, handle)).get();
export const findVersion = (db: Db, versionId: string) => db.select().from(appVersions).where(eq(appVersions.id, versionId)).get();
export const findInstallation = (db: Db, installationId: string) => db.select().from(appInstallations).where(eq(appInstallations.id, installationId)).get();
export const activeInstallation = (db: Db, storeId: string, appId: string) =>
  db.select().from(appInstallations).where(and(eq(appInstallations.storeId, storeId), eq(appInstallations.appId, appId), eq(appInstallations.status, 'ACTIVE'))).get();

/** The app of a developer; another developer's app is 404 (apps are not listed across accounts). */
export async function ownApp(db: Db, appId: string, userId: string): Promise<App> {
  const app = await findApp(db, appId);
  if (!app || app.ownerUserId !== userId) throw fail(404, 'APP_NOT_FOUND');
  return app;
}

export async function createApp(services: Services, userId: string, manifest: Manifest, now: number): Promise<App> {
  if (await findAppByHandle(services.db, manifest.handle)) throw fail(409, 'APP_HANDLE_TAKEN', { handle: manifest.handle });
  const app: App = {
    id: newId('app', now), handle: manifest.handle, name: manifest.name, ownerUserId: userId, visibility: 'DEVELOPMENT',
    latestVersion: 0, failingSince: null, suspendedAt: null, createdAt: now, updatedAt: now,
  };
  await services.db.insert(apps).values(app).run();
  return app;
}

/**
 * A new version of an app. Installations move to it at once when it asks for nothing new; otherwise
 * they keep running the old version with the new one pending consent (spec 02 §3). A new version also
 * lifts a suspension: the developer shipped a fix.
 */
export async function addVersion(services: Services, app: App, userId: string, manifest: Manifest, bundle: AppBundle, now: number): Promise<AppVersion> {
  const { db } = services;
  if (manifest.handle !== app.handle) throw validationFailed([{ field: 'manifest.handle', code: 'HANDLE_MISMATCH', message: `이 앱의 핸들은 ${app.handle}입니다. 핸들은 바꿀 수 없습니다.` }]);
  const version: AppVersion = { id: newId('appv', now), appId: app.id, version: app.latestVersion + 1, manifest, bundle, createdBy: userId, createdAt: now };
  await db.insert(appVersions).values(version).run();
  await db.update(apps).set({ name: manifest.name, latestVersion: version.version, failingSince: null, suspendedAt: null, updatedAt: now }).where(eq(apps.id, app.id)).run();

  const installations = await db.select().from(appInstallations).where(and(eq(appInstallations.appId, app.id), eq(appInstallations.status, 'ACTIVE'))).all();
  for (const inst of installations) {
    const running = (await findVersion(db, inst.versionId))!;
    if (Object.keys(consentWidening(running.manifest, manifest)).length === 0) await moveToVersion(services, inst, version, now);
    else await db.update(appInstallations).set({ pendingVersionId: version.id, updatedAt: now }).where(eq(appInstallations.id, inst.id)).run();
  }
  return version;
}

/** Scopes of `manifest` above `role` (an installer cannot grant more than they hold, spec 02 §2.2). */
export function assertRoleCovers(role: Role, manifest: Manifest) {
  const above = manifest.scopes.filter((s) => !roleAllows(role, s));
  if (above.length) throw fail(403, 'INSUFFICIENT_ROLE', { reason: 'SCOPE_ABOVE_ROLE', role, scopes: above });
}

/** Development and private apps install only in stores their developer belongs to. */
export async function assertInstallable(db: Db, app: App, storeId: string) {
  if (app.visibility === 'PUBLIC') return;
  if (!(await findMembership(db, storeId, app.ownerUserId))) throw fail(403, 'APP_NOT_INSTALLABLE', { visibility: app.visibility });
}

export async function install(services: Services, app: App, storeId: string, userId: string, now: number): Promise<Installation> {
  const version = await latestVersion(services.db, app);
  const inst: Installation = {
    id: newId('inst', now), storeId, appId: app.id, versionId: version.id, pendingVersionId: null, grantedScopes: version.manifest.scopes,
    installedBy: userId, settings: {}, status: 'ACTIVE', installedAt: now, updatedAt: now, uninstalledAt: null, eraseAt: null, erasedAt: null,
  };
  await services.db.insert(appInstallations).values(inst).run();
  await syncSchedules(services.db, inst.id, version.manifest, now);
  return inst;
}

export async function latestVersion(db: Db, app: App): Promise<AppVersion> {
  const v = await db.select().from(appVersions).where(and(eq(appVersions.appId, app.id), eq(appVersions.version, app.latestVersion))).get();
  if (!v) throw fail(409, 'APP_NO_VERSION');
  return v;
}

/** Consent given to `version`: it runs from now on with its scopes; the app hears APP.SCOPES_UPDATED when scopes changed. */
export async function consentTo(services: Services, inst: Installation, version: AppVersion, now: number) {
  const before = inst.grantedScopes;
  await moveToVersion(services, inst, version, now);
  await emitEvent(services.db, now, {
    storeId: inst.storeId,
    type: 'APP.SCOPES_UPDATED',
    resource: null,
    data: { installationId: inst.id, appId: inst.appId, version: version.version, previousScopes: before, scopes: version.manifest.scopes },
  });
  await enqueueDelivery(services.db, inst.id, 'APP.SCOPES_UPDATED', { version: version.version, previousScopes: before, scopes: version.manifest.scopes }, now);
}

async function moveToVersion(services: Services, inst: Installation, version: AppVersion, now: number) {
  await services.db.update(appInstallations)
    .set({ versionId: version.id, pendingVersionId: null, grantedScopes: version.manifest.scopes, updatedAt: now })
    .where(eq(appInstallations.id, inst.id))
    .run();
  await syncSchedules(services.db, inst.id, version.manifest, now);
}

/** Schedules follow the running version: new ones start one interval from now, kept ones keep their next run. */
async function syncSchedules(db: Db, installationId: string, manifest: Manifest, now: number) {
  const declared = Object.entries(manifest.schedules ?? {});
  const existing = await db.select().from(appSchedules).where(eq(appSchedules.installationId, installationId)).all();
  const names = declared.map(([n]) => n);
  const gone = existing.filter((s) => !names.includes(s.name)).map((s) => s.name);
  if (gone.length) await db.delete(appSchedules).where(and(eq(appSchedules.installationId, installationId), inArray(appSchedules.name, gone))).run();
  for (const [name, s] of declared) {
    const intervalS = intervalSeconds(s.interval);
    await db.insert(appSchedules).values({ installationId, name, intervalSeconds: intervalS, nextRunAt: now + intervalS * 1000 })
      .onConflictDoUpdate({ target: [appSchedules.installationId, appSchedules.name], set: { intervalSeconds: intervalS } })
      .run();
  }
}

/** Access ends now; settings and storage are erased 48 hours later by the erase job. */
export async function uninstall(services: Services, inst: Installation, now: number) {
  const { db } = services;
  await db.update(appInstallations)
    .set({ status: 'UNINSTALLED', pendingVersionId: null, uninstalledAt: now, eraseAt: now + ERASE_DELAY_MS, updatedAt: now })
    .where(eq(appInstallations.id, inst.id))
    .run();
  await db.delete(appSchedules).where(eq(appSchedules.installationId, inst.id)).run();
  await enqueueDelivery(db, inst.id, 'APP.UNINSTALLED', { uninstalledAt: isoAt(now), eraseAt: isoAt(now + ERASE_DELAY_MS) }, now);
}

/**
 * A store-wide notice (APP.CUSTOMER_REDACT) to every running installation of the store that holds one of
 * `scopes`, queued in the caller's transaction and delivered to the app's `events/<EVENT>` function.
 */
export async function notifyStoreApps(db: Db, storeId: string, event: string, payload: Record<string, unknown>, scopes: string[], now: number) {
  const running = await db.select().from(appInstallations).where(and(eq(appInstallations.storeId, storeId), eq(appInstallations.status, 'ACTIVE'))).all();
  for (const inst of running) if (inst.grantedScopes.some((s) => scopes.includes(s))) await enqueueDelivery(db, inst.id, event, payload, now);
}

async function enqueueDelivery(db: Db, installationId: string, event: string, payload: Record<string, unknown>, now: number) {
  await db.insert(appDeliveries).values({ id: newId('appd', now), installationId, event, payload, status: 'PENDING', attempts: 0, nextAttemptAt: now, createdAt: now }).run();
}

/** Erase job: 48 hours after uninstall, settings and storage go and the app is told to erase store data. */
export async function eraseUninstalled(services: Services, now: number): Promise<number> {
  const { db } = services;
  const due = await db.select().from(appInstallations)
    .where(and(eq(appInstallations.status, 'UNINSTALLED'), lte(appInstallations.eraseAt, now), sql`${appInstallations.erasedAt} is null`))
    .all();
  for (const inst of due) {
    await transaction(services.db, async () => {
      // Of several processes (or a re-run of this transaction after a conflict), the one that marks it erased erases it.
      const claimed = (await db.update(appInstallations).set({ settings: {}, erasedAt: now, updatedAt: now })
        .where(and(eq(appInstallations.id, inst.id), isNull(appInstallations.erasedAt))).run()).changes === 1;
      if (!claimed) return;
      await db.delete(appStorage).where(eq(appStorage.installationId, inst.id)).run();
      await enqueueDelivery(db, inst.id, 'APP.STORE_DATA_ERASE', { storeId: inst.storeId, uninstalledAt: isoAt(inst.uninstalledAt!) }, now);
    });
  }
  return due.length;
}

export async function pruneExecutions(services: Services, now: number): Promise<number> {
  return (await services.db.delete(appExecutions).where(lte(appExecutions.createdAt, now - EXECUTION_RETENTION_MS)).run()).changes;
}

// ——— settings ———

export function missingSettings(manifest: Manifest, settings: Record<string, SettingValue>): string[] {
  return Object.entries(manifest.settings ?? {}).filter(([k, d]) => d.required && (settings[k] === undefined || settings[k] === '')).map(([k]) => k);
}

/** Secret settings show only their first 4 characters once saved (spec 02 §2.2). */
function presentSettings(manifest: Manifest, settings: Record<string, SettingValue>) {
  return Object.fromEntries(Object.entries(manifest.settings ?? {}).map(([k, d]) => {
    const v = settings[k];
    if (v === undefined) return [k, null];
    return [k, d.secret ? `${String(v).slice(0, 4)}${'*'.repeat(Math.max(String(v).length - 4, 4))}` : v];
  }));
}

/** A settings patch against the running version's declarations: null clears, undeclared names and wrong types are refused. */
export function applySettingsPatch(manifest: Manifest, current: Record<string, SettingValue>, patch: Record<string, unknown>) {
  const declared = manifest.settings ?? {};
  const errors = [];
  const next = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    const def = declared[k];
    if (!def) errors.push({ field: `settings.${k}`, code: 'UNKNOWN_FIELD', message: '앱이 선언하지 않은 설정입니다.' });
    else if (v === null) delete next[k];
    else if (typeof v !== def.type) errors.push({ field: `settings.${k}`, code: 'INVALID_TYPE', message: `${def.type} 형식이어야 합니다.` });
    else next[k] = v as SettingValue;
  }
  if (errors.length) throw validationFailed(errors);
  return next;
}

// ——— executions ———

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
  await recordExecution(services, {
    app: t.app, installation: t.installation, kind, name,
    status: suspended ? 'NOT_SENT' : 'NEEDS_SETUP',
    errorCode: suspended ? 'APP_SUSPENDED' : 'SETTINGS_REQUIRED',
    errorMessage: suspended ? null : `required settings empty: ${missing.join(', ')}`,
  }, now);
  return suspended ? 'APP_SUSPENDED' : 'SETTINGS_REQUIRED';
}

/**
 * Records one run and keeps the failure record of spec 02 §3: an app whose calls have all failed as app
 * errors for 24 hours is suspended; any success clears the run of failures.
 */
export async function recordExecution(services: Services, r: ExecutionRecord, now: number) {
  const { db } = services;
  await transaction(services.db, async () => {
    await db.insert(appExecutions).values({
      id: newId('appx', now), appId: r.app.id, installationId: r.installation.id, storeId: r.installation.storeId, kind: r.kind, name: r.name,
      status: r.status, errorCode: r.errorCode ?? null, errorMessage: r.errorMessage ?? null, logs: r.logs ?? [], durationMs: Math.round(r.durationMs ?? 0), createdAt: now,
    }).run();
    if (r.status === 'SUCCEEDED') {
      await db.update(apps).set({ failingSince: null }).where(and(eq(apps.id, r.app.id), sql`${apps.failingSince} is not null`)).run();
    } else if (r.appError) {
      const app = (await findApp(db, r.app.id))!;
      if (app.failingSince === null) await db.update(apps).set({ failingSince: now }).where(eq(apps.id, app.id)).run();
      else if (app.suspendedAt === null && now - app.failingSince >= SUSPEND_AFTER_MS) await db.update(apps).set({ suspendedAt: now, updatedAt: now }).where(eq(apps.id, app.id)).run();
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
    executionId: x.id, installationId: x.installationId, kind: x.kind, name: x.name, status: x.status,
    errorCode: x.errorCode, errorMessage: x.errorMessage, logs: x.logs, durationMs: x.durationMs, createdAt: isoAt(x.createdAt),
  };
}

function recentExecutions(db: Db, installationId: string, limit: number) {
  return db.select().from(appExecutions).where(eq(appExecutions.installationId, installationId)).orderBy(desc(appExecutions.id)).limit(limit).all();
}

// ——— presentation ———

const appStatus = z.enum(['ACTIVE', 'SUSPENDED']).describe('SUSPENDED after 24 hours in which every call failed as an app error; a new version lifts it.');

/** An app as its developer sees it. */
export const appView = z.object({
  appId: z.string(),
  handle: z.string(),
  name: z.string(),
  visibility: z.enum(['DEVELOPMENT', 'PRIVATE', 'PUBLIC']),
  latestVersion: z.number().int().describe('0 until a version is uploaded.'),
  status: appStatus,
  suspendedAt: instant.nullable(),
  createdAt: instant,
  updatedAt: instant,
});

export function presentApp(app: App) {
  return {
    appId: app.id, handle: app.handle, name: app.name, visibility: app.visibility, latestVersion: app.latestVersion,
    status: app.suspendedAt ? 'SUSPENDED' : 'ACTIVE', suspendedAt: app.suspendedAt ? isoAt(app.suspendedAt) : null,
    createdAt: isoAt(app.createdAt), updatedAt: isoAt(app.updatedAt),
  };
}

/** An uploaded version: its manifest (defaults filled in) and the functions its bundle defines. */
export const appVersionView = z.object({
  versionId: z.string(),
  appId: z.string(),
  version: z.number().int(),
  manifest: manifestSchema,
  functions: z.array(z.string().regex(/^(tools|notifications|schedules|routes|events)\/.+$/)).describe('e.g. `tools/greet`, `routes/GET /orders/:id`.'),
  createdAt: instant,
});

export function presentVersion(v: AppVersion) {
  return { versionId: v.id, appId: v.appId, version: v.version, manifest: v.manifest, functions: [...v.bundle.functions].sort(), createdAt: isoAt(v.createdAt) };
}

/** A tool of an app as its manifest declares it. */
export const toolView = z.object({ name: z.string(), description: z.string(), input: z.record(z.string(), toolInputField) });

export function toolList(manifest: Manifest) {
  return Object.entries(manifest.mcp?.tools ?? {}).map(([name, t]) => ({ name, description: t.description, input: t.input ?? {} }));
}

/**
 * Where an app's admin page and public routes are: its own host under the apps host (svc serve), or
 * `/apps/{handle}` on the service's origin (svc dev); null when svc serve has no apps host to serve them.
 */
export function appBaseUrl(services: Services, handle: string): string | null {
  const { appsHost, origin, mode } = services.config;
  if (appsHost) {
    const service = new URL(origin);
    return `${service.protocol}//${handle}.${appsHost}${service.port ? `:${service.port}` : ''}`;
  }
  return mode === 'dev' ? `${origin}/apps/${handle}` : null;
}

/** An installation of an app in the store (spec 02 §2.2). */
export const installationView = z.object({
  installationId: z.string(),
  app: z.object({ appId: z.string(), handle: z.string(), name: z.string(), status: appStatus }),
  status: z.enum(['ACTIVE', 'UNINSTALLED']),
  visibility: z.enum(['DEVELOPMENT', 'PRIVATE', 'PUBLIC']),
  version: z.number().int().describe('The running, consented version.'),
  pendingVersion: z.object({
    version: z.number().int(),
    requires: z.record(z.string(), z.array(z.string())).describe('What the version adds that needs consent, by kind (scopes, hosts, events, publicRoutes, schedules, tools, externalHost).'),
  }).nullable().describe('A newer version awaiting consent; null when none.'),
  needsUpdate: z.boolean(),
  permissions: z.object({ scopes: z.array(z.string()), hosts: z.array(z.string()) }),
  settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .describe('Every setting the running version declares; null when unset; secret ones show their first 4 characters only.'),
  needsSetup: z.boolean().describe('A required setting is empty: events are not delivered to the app.'),
  missingSettings: z.array(z.string()),
  tools: z.array(toolView),
  externalHost: z.string().nullable().describe('The host an external-runtime app runs on.'),
  publicHttp: z.array(z.object({ method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']), path: z.string(), url: z.string().nullable().describe('null under svc serve without an apps host') })),
  schedules: z.array(z.object({ name: z.string(), interval: z.string(), nextRunAt: instant.nullable() })),
  flowNotifications: z.array(z.object({ name: z.string(), label: z.string(), description: z.string().nullable(), params: z.record(z.string(), flowParam) })),
  flowEvents: z.array(z.object({ name: z.string().describe('`app.<handle>.<EVENT>`'), label: z.string(), description: z.string().nullable() })),
  installedAt: instant,
  uninstalledAt: instant.nullable(),
  eraseAt: instant.nullable().describe('When settings and app storage are erased (48 hours after uninstalling); null once done.'),
});

export async function presentInstallation(services: Services, inst: Installation) {
  const { db } = services;
  const app = (await findApp(db, inst.appId))!;
  const version = (await findVersion(db, inst.versionId))!;
  const pending = inst.pendingVersionId ? (await findVersion(db, inst.pendingVersionId))! : null;
  const m = version.manifest;
  const surface = consentSurface(m);
  const missing = missingSettings(m, inst.settings);
  const schedules = await db.select().from(appSchedules).where(eq(appSchedules.installationId, inst.id)).all();
  const base = appBaseUrl(services, app.handle);
  return {
    installationId: inst.id,
    app: { appId: app.id, handle: app.handle, name: app.name, status: app.suspendedAt ? 'SUSPENDED' : 'ACTIVE' },
    status: inst.status,
    visibility: app.visibility,
    version: version.version,
    pendingVersion: pending ? { version: pending.version, requires: consentWidening(m, pending.manifest) } : null,
    needsUpdate: pending !== null,
    permissions: { scopes: inst.grantedScopes, hosts: surface.hosts },
    settings: presentSettings(m, inst.settings),
    needsSetup: missing.length > 0,
    missingSettings: missing,
    tools: toolList(m),
    externalHost: surface.externalHost,
    publicHttp: surface.publicRoutes.map((r) => {
      const [method, path] = r.split(' ');
      return { method, path, url: base === null ? null : `${base}/hooks/${inst.id}${path}` };
    }),
    schedules: Object.entries(m.schedules ?? {}).map(([name, s]) => {
      const next = schedules.find((x) => x.name === name)?.nextRunAt;
      return { name, interval: s.interval, nextRunAt: next ? isoAt(next) : null };
    }),
    flowNotifications: Object.entries(m.flow?.notifications ?? {}).map(([name, n]) => ({ name, label: n.label, description: n.description ?? null, params: n.params ?? {} })),
    flowEvents: Object.entries(m.flow?.events ?? {}).map(([name, e]) => ({ name: `app.${app.handle}.${name}`, label: e.label, description: e.description ?? null })),
    installedAt: isoAt(inst.installedAt),
    uninstalledAt: inst.uninstalledAt ? isoAt(inst.uninstalledAt) : null,
    eraseAt: inst.eraseAt && !inst.erasedAt ? isoAt(inst.eraseAt) : null,
  };
}

export const installationActivityView = z.object({
  installationId: z.string(),
  deliveries: z.array(executionView).describe('The last 50 runs and deliveries.'),
  apiCalls: z.object({ days: z.number().int(), count: z.number().int().describe('Admin API calls made with installation tokens.') }),
});

export async function installationActivity(services: Services, inst: Installation) {
  return {
    installationId: inst.id,
    deliveries: (await recentExecutions(services.db, inst.id, 50)).map(presentExecution),
    apiCalls: { days: 7, count: await apiCallCount(services, inst.id, 7) },
  };
}
