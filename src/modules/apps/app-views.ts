// What developers and sellers see of apps: the app, its versions and tools, an installation and its activity.
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { apiCallCount } from './installation-tokens.js';
import { findApp, findVersion, type App, type AppVersion, type Installation } from './app-records.js';
import { missingSettings, presentSettings } from './app-settings.js';
import { executionView, presentExecution, recentExecutions } from './executions.js';
import { consentSurface, consentWidening, flowParam, manifestSchema, toolInputField, type Manifest } from '../../kernel/app-manifest.js';
import { appSchedules } from './schema.js';

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

export function presentApp(app: App): z.output<typeof appView> {
  return {
    appId: app.id,
    handle: app.handle,
    name: app.name,
    visibility: app.visibility,
    latestVersion: app.latestVersion,
    status: app.suspendedAt ? 'SUSPENDED' : 'ACTIVE',
    suspendedAt: app.suspendedAt ? isoAt(app.suspendedAt) : null,
    createdAt: isoAt(app.createdAt),
    updatedAt: isoAt(app.updatedAt),
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
  return {
    versionId: v.id,
    appId: v.appId,
    version: v.version,
    manifest: v.manifest,
    functions: [...v.bundle.functions].sort(),
    createdAt: isoAt(v.createdAt),
  };
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
export const installationView = z
  .object({
    installationId: z.string(),
    app: z.object({ appId: z.string(), handle: z.string(), name: z.string(), status: appStatus }),
    status: z.enum(['ACTIVE', 'UNINSTALLED']),
    visibility: z.enum(['DEVELOPMENT', 'PRIVATE', 'PUBLIC']),
    version: z.number().int().describe('The running, consented version.'),
    pendingVersion: z
      .object({
        version: z.number().int(),
        requires: z
          .record(z.string(), z.array(z.string()))
          .describe('What the version adds that needs consent, by kind (scopes, hosts, events, publicRoutes, schedules, tools, externalHost).'),
      })
      .nullable()
      .describe('A newer version awaiting consent; null when none.'),
    needsUpdate: z.boolean(),
    permissions: z.object({ scopes: z.array(z.string()), hosts: z.array(z.string()) }),
    settings: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .describe('Every setting the running version declares; null when unset; secret ones show their first 4 characters only.'),
    needsSetup: z.boolean().describe('A required setting is empty: events are not delivered to the app.'),
    missingSettings: z.array(z.string()),
    tools: z.array(toolView),
    externalHost: z.string().nullable().describe('The host an external-runtime app runs on.'),
    publicHttp: z.array(
      z.object({
        method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
        path: z.string(),
        url: z.string().nullable().describe('null under svc serve without an apps host'),
      }),
    ),
    schedules: z.array(z.object({ name: z.string(), interval: z.string(), nextRunAt: instant.nullable() })),
    flowNotifications: z.array(z.object({ name: z.string(), label: z.string(), description: z.string().nullable(), params: z.record(z.string(), flowParam) })),
    flowEvents: z.array(z.object({ name: z.string().describe('`app.<handle>.<EVENT>`'), label: z.string(), description: z.string().nullable() })),
    installedAt: instant,
    uninstalledAt: instant.nullable(),
    eraseAt: instant.nullable().describe('When settings and app storage are erased (48 hours after uninstalling); null once done.'),
  })
  .meta({ id: 'AppInstallation' });

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
    flowNotifications: Object.entries(m.flow?.notifications ?? {}).map(([name, n]) => ({
      name,
      label: n.label,
      description: n.description ?? null,
      params: n.params ?? {},
    })),
    flowEvents: Object.entries(m.flow?.events ?? {}).map(([name, e]) => ({
      name: `app.${app.handle}.${name}`,
      label: e.label,
      description: e.description ?? null,
    })),
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
