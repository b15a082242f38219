import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Manifest } from '../../kernel/app-manifest.js';

export type AppVisibility = 'DEVELOPMENT' | 'PRIVATE' | 'PUBLIC';
export type InstallationStatus = 'ACTIVE' | 'UNINSTALLED';
export type SettingValue = string | number | boolean;

/** An app as its developer registered it; `handle` is global (URLs, flow event names). */
export const apps = sqliteTable(
  'apps',
  {
    id: text('id').primaryKey(),
    handle: text('handle').notNull(),
    name: text('name').notNull(),
    ownerUserId: text('owner_user_id').notNull(),
    visibility: text('visibility').$type<AppVisibility>().notNull(),
    latestVersion: integer('latest_version').notNull(),
    /** First app error of the current unbroken run of failures; cleared by any success. */
    failingSince: integer('failing_since'),
    suspendedAt: integer('suspended_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('apps_handle').on(t.handle)],
);

/** The stores a `PRIVATE` app's developer named: it installs there (and in the developer's own stores). */
export const appAllowedStores = sqliteTable(
  'app_allowed_stores',
  {
    appId: text('app_id')
      .notNull()
      .references(() => apps.id),
    storeId: text('store_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.storeId] })],
);

/**
 * A built version as `svc app build` produced it (runtime/README.md, bundle contract): one script defining
 * the global `__app` with each function under its group (`__app.tools[name]`, …), its source map, and the
 * list of functions it holds (`tools/NAME`, `notifications/NAME`, …).
 */
export interface AppBundle {
  code: string;
  map?: string;
  functions: string[];
  adminPage?: string;
}

export const appVersions = sqliteTable(
  'app_versions',
  {
    id: text('id').primaryKey(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id),
    version: integer('version').notNull(),
    manifest: text('manifest', { mode: 'json' }).$type<Manifest>().notNull(),
    bundle: text('bundle', { mode: 'json' }).$type<AppBundle>().notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('app_versions_app_version').on(t.appId, t.version)],
);

export const appInstallations = sqliteTable(
  'app_installations',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id),
    /** The running, consented version. */
    versionId: text('version_id').notNull(),
    /** A newer version that widens consent and waits for it. */
    pendingVersionId: text('pending_version_id'),
    /** Scopes of the consented version, read on every installation-token request. */
    grantedScopes: text('granted_scopes', { mode: 'json' }).$type<string[]>().notNull(),
    installedBy: text('installed_by').notNull(),
    settings: text('settings', { mode: 'json' }).$type<Record<string, SettingValue>>().notNull(),
    status: text('status').$type<InstallationStatus>().notNull(),
    installedAt: integer('installed_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    uninstalledAt: integer('uninstalled_at'),
    /** When settings and storage are erased and the erase notice goes out (uninstall + 48 h). */
    eraseAt: integer('erase_at'),
    erasedAt: integer('erased_at'),
  },
  (t) => [
    // One live installation of an app per store; ended ones stay as records.
    uniqueIndex('app_installations_store_app_active')
      .on(t.storeId, t.appId)
      .where(sql`status = 'ACTIVE'`),
    index('app_installations_app').on(t.appId),
    index('app_installations_erase').on(t.eraseAt),
  ],
);

export const appStorage = sqliteTable(
  'app_storage',
  {
    installationId: text('installation_id').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    /** UTF-8 bytes of key plus JSON value: what counts against the 1 MB quota. */
    bytes: integer('bytes').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.key] })],
);

export type ExecutionKind = 'TOOL' | 'NOTIFICATION' | 'SCHEDULE' | 'HTTP' | 'EVENT';
export type ExecutionStatus = 'SUCCEEDED' | 'FAILED' | 'NEEDS_SETUP' | 'NOT_SENT';

/** Every run of app code and every delivery that did not run (kept 7 days, spec 02 §8). */
export const appExecutions = sqliteTable(
  'app_executions',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').notNull(),
    installationId: text('installation_id').notNull(),
    storeId: text('store_id').notNull(),
    kind: text('kind').$type<ExecutionKind>().notNull(),
    name: text('name').notNull(),
    status: text('status').$type<ExecutionStatus>().notNull(),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    logs: text('logs', { mode: 'json' }).$type<string[]>().notNull(),
    durationMs: integer('duration_ms').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('app_executions_installation').on(t.installationId, t.id),
    index('app_executions_app').on(t.appId, t.id),
    index('app_executions_created').on(t.createdAt),
  ],
);

/** API calls made with installation tokens, per UTC day. */
export const appApiCalls = sqliteTable(
  'app_api_calls',
  {
    installationId: text('installation_id').notNull(),
    day: text('day').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.day] })],
);

export type DeliveryStatus = 'PENDING' | 'DONE';

/** Durable queue of lifecycle notices to apps (scopes updated, uninstalled, erase). */
export const appDeliveries = sqliteTable(
  'app_deliveries',
  {
    id: text('id').primaryKey(),
    installationId: text('installation_id').notNull(),
    event: text('event').notNull(),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<DeliveryStatus>().notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('app_deliveries_due').on(t.status, t.nextAttemptAt)],
);

/** Next run of each declared schedule of each live installation. */
export const appSchedules = sqliteTable(
  'app_schedules',
  {
    installationId: text('installation_id').notNull(),
    name: text('name').notNull(),
    intervalSeconds: integer('interval_seconds').notNull(),
    nextRunAt: integer('next_run_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.name] }), index('app_schedules_due').on(t.nextRunAt)],
);
