import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** One file of a site's source or build output: its content lives in the blob store under `hash`. */
export interface StoredFile {
  hash: string;
  size: number;
}

/** A served file of a version: `immutable` for hashed names (client bundles), revalidated by ETag otherwise. */
export interface VersionAsset extends StoredFile {
  contentType: string;
  immutable: boolean;
}

export type DeploymentStepName = 'SITE' | 'UPLOAD' | 'PUBLISH';
export interface DeploymentStep {
  name: DeploymentStepName;
  status: 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';
}

export interface DependencyFinding {
  package: string;
  version: string | null;
  reason: string;
  detail: string;
  advisory: string | null;
}

/**
 * The hosted storefront of a store (one per store). `publishedVersionId` is what the seller chose;
 * `servedVersionId` what visitors get, set by provisioning once the version's artifacts are in place.
 * `revision` grows with every change, so serving caches revalidate with one primary-key read. One live site
 * per store; a disabled (CLOSED) one stays beside it until the job runner deletes it.
 */
export const sites = sqliteTable(
  'storefront_sites',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    slug: text('slug').notNull(),
    templateId: text('template_id').notNull(),
    visibility: text('visibility', { enum: ['COMING_SOON', 'PUBLIC'] }).notNull(),
    status: text('status', { enum: ['ACTIVE', 'SUSPENDED', 'CLOSED'] }).notNull(),
    suspensionReason: text('suspension_reason'),
    /** Disabled (CLOSED): the closing notice shows until then, when the job runner deletes the site. */
    deleteAt: integer('delete_at'),
    publishedVersionId: text('published_version_id'),
    servedVersionId: text('served_version_id'),
    provisioningStatus: text('provisioning_status', { enum: ['PENDING', 'SYNCED', 'FAILED'] }).notNull(),
    provisioningFailures: integer('provisioning_failures').notNull(),
    /** When the provisioning job next applies the published version; null when nothing is pending. */
    nextAttemptAt: integer('next_attempt_at'),
    revision: integer('revision').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('storefront_sites_store')
      .on(t.storeId)
      .where(sql`status <> 'CLOSED'`),
    uniqueIndex('storefront_sites_slug').on(t.slug),
    index('storefront_sites_due').on(t.nextAttemptAt),
  ],
);

/** Every site creation, for the limit of 3 per 30 days (kept when a site is closed). */
export const siteCreations = sqliteTable(
  'storefront_site_creations',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('storefront_site_creations_store').on(t.storeId, t.createdAt)],
);

/** The deployment that sets a new site up (SITE → UPLOAD → PUBLISH); one per site, retried in place. */
export const deployments = sqliteTable(
  'storefront_deployments',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id').notNull(),
    storeId: text('store_id').notNull(),
    status: text('status', { enum: ['RUNNING', 'SUCCEEDED', 'FAILED'] }).notNull(),
    steps: text('steps', { mode: 'json' }).$type<DeploymentStep[]>().notNull(),
    log: text('log', { mode: 'json' }).$type<string[]>().notNull(),
    errorCode: text('error_code'),
    buildId: text('build_id'),
    /** Due for the deployment job (the UPLOAD step); null while the build runs or once ended. */
    nextAttemptAt: integer('next_attempt_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('storefront_deployments_site').on(t.siteId), index('storefront_deployments_due').on(t.nextAttemptAt)],
);

/** The site's current source files (what the next build uses). */
export const siteFiles = sqliteTable(
  'storefront_files',
  {
    storeId: text('store_id').notNull(),
    path: text('path').notNull(),
    hash: text('hash').notNull(),
    size: integer('size').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.path] })],
);

/** A build of the source files as they were when it was asked for; a durable job claimed with a lease. */
export const builds = sqliteTable(
  'storefront_builds',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    siteId: text('site_id').notNull(),
    status: text('status', { enum: ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED'] }).notNull(),
    failureStage: text('failure_stage', { enum: ['VERIFY', 'DEPENDENCIES', 'INSTALL', 'BUILD', 'UPLOAD'] }),
    errorCode: text('error_code'),
    logTail: text('log_tail').notNull(),
    dependencies: text('dependencies', { mode: 'json' }).$type<{ rejected: DependencyFinding[]; warnings: DependencyFinding[] }>().notNull(),
    files: text('files', { mode: 'json' }).$type<Record<string, StoredFile>>().notNull(),
    versionId: text('version_id'),
    /** Publish the version once built (the deployment's PUBLISH step). */
    publish: integer('publish', { mode: 'boolean' }).notNull(),
    /** First time the advisory source could not be read for this build (30 minutes → DEPENDENCY_CHECK_UNAVAILABLE). */
    advisoriesUnavailableSince: integer('advisories_unavailable_since'),
    /** Due for a build process to claim; a running build's lease; null once ended. */
    nextAttemptAt: integer('next_attempt_at'),
    createdAt: integer('created_at').notNull(),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('storefront_builds_store').on(t.storeId, t.createdAt), index('storefront_builds_due').on(t.nextAttemptAt)],
);

/** A built version: content-addressed artifacts (server bundle, static files) and what it was built from. */
export const versions = sqliteTable(
  'storefront_versions',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    siteId: text('site_id').notNull(),
    number: integer('number').notNull(),
    templateVersion: text('template_version'),
    server: text('server', { mode: 'json' }).$type<{ bundle: StoredFile; map: StoredFile | null }>().notNull(),
    /** Served paths relative to the site root (`assets/client-3FJ2.js`, `style.css`). */
    assets: text('assets', { mode: 'json' }).$type<Record<string, VersionAsset>>().notNull(),
    /** Client entry → its hashed path, handed to the server bundle as `__SVC_ASSETS__`. */
    clientEntries: text('client_entries', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    staticBytes: integer('static_bytes').notNull(),
    buildId: text('build_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('storefront_versions_number').on(t.siteId, t.number), index('storefront_versions_store').on(t.storeId)],
);

/** Every publish and rollback, newest last: rollback's default target is the one before the current. */
export const publications = sqliteTable(
  'storefront_publications',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    siteId: text('site_id').notNull(),
    versionId: text('version_id').notNull(),
    via: text('via', { enum: ['PUBLISH', 'ROLLBACK', 'DEPLOYMENT'] }).notNull(),
    publishedAt: integer('published_at').notNull(),
  },
  (t) => [index('storefront_publications_site').on(t.siteId, t.publishedAt)],
);

/** One-time preview links (stored by the hash of their secret). */
export const previewLinks = sqliteTable(
  'storefront_preview_links',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    storeId: text('store_id').notNull(),
    versionId: text('version_id').notNull(),
    createdBy: text('created_by').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('storefront_preview_links_token').on(t.tokenHash)],
);

export type DomainStatus = 'PENDING_DNS' | 'PENDING_VALIDATION' | 'ACTIVE' | 'FAILED';

/**
 * A custom domain of a store's site (spec 02 §3). `held` while this store proved the TXT record (no other
 * store can add it then); `waitSince` starts the current wait (TXT 7 days, validation, DNS_NOT_POINTING release).
 */
export const domains = sqliteTable(
  'storefront_domains',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    siteId: text('site_id').notNull(),
    hostname: text('hostname').notNull(),
    status: text('status', { enum: ['PENDING_DNS', 'PENDING_VALIDATION', 'ACTIVE', 'FAILED'] })
      .$type<DomainStatus>()
      .notNull(),
    failureCode: text('failure_code'),
    verifyValue: text('verify_value').notNull(),
    primary: integer('is_primary', { mode: 'boolean' }).notNull(),
    held: integer('held', { mode: 'boolean' }).notNull(),
    certificate: text('certificate', { mode: 'json' }).$type<{ issuer: string; issuedAt: number; expiresAt: number } | null>(),
    waitSince: integer('wait_since').notNull(),
    addedAt: integer('added_at').notNull(),
    activatedAt: integer('activated_at'),
    /** Due for the domain job's next DNS look-up; null once FAILED. */
    nextAttemptAt: integer('next_attempt_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('storefront_domains_store_host').on(t.storeId, t.hostname),
    index('storefront_domains_host').on(t.hostname),
    index('storefront_domains_due').on(t.nextAttemptAt),
  ],
);

/** A connected domain's certificate chain and private key (PEM), for TLS in svc serve; replaced on renewal. */
export const domainCertificates = sqliteTable(
  'storefront_domain_certificates',
  {
    hostname: text('hostname').primaryKey(),
    domainId: text('domain_id').notNull(),
    chainPem: text('chain_pem').notNull(),
    keyPem: text('key_pem').notNull(),
    issuedAt: integer('issued_at').notNull(),
  },
  (t) => [index('storefront_domain_certificates_domain').on(t.domainId)],
);

/** The ACME account svc serve orders certificates with, one per directory (its key made on first use). */
export const acmeAccounts = sqliteTable('storefront_acme_accounts', {
  directoryUrl: text('directory_url').primaryKey(),
  accountKey: text('account_key').notNull(),
  accountUrl: text('account_url'),
  createdAt: integer('created_at').notNull(),
});

/**
 * ACME http-01 challenges in progress: the authority fetches `/.well-known/acme-challenge/{token}` from the
 * domain, whichever process of the service it reaches, so they live in the database.
 */
export const acmeChallenges = sqliteTable('storefront_acme_challenges', {
  token: text('token').primaryKey(),
  hostname: text('hostname').notNull(),
  keyAuthorization: text('key_authorization').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * Addresses (slugs) held for a store: an old slug for 90 days after a change (redirecting to the site's
 * current address). Changes are counted from these rows (3 per 30 days). A disabled site's slug is held by
 * its closing site row for the 30 days instead; `DISABLED` rows are from before that and simply run out.
 */
export const slugHolds = sqliteTable(
  'storefront_slug_holds',
  {
    id: text('id').primaryKey(),
    slug: text('slug').notNull(),
    storeId: text('store_id').notNull(),
    reason: text('reason', { enum: ['SLUG_CHANGE', 'DISABLED'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    heldUntil: integer('held_until').notNull(),
  },
  (t) => [index('storefront_slug_holds_slug').on(t.slug, t.heldUntil), index('storefront_slug_holds_store').on(t.storeId, t.createdAt)],
);

/** A check (type check, lint, tests) of the site's files as they were when asked for; one per site at a time. */
export const checks = sqliteTable(
  'storefront_checks',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    siteId: text('site_id').notNull(),
    status: text('status', { enum: ['QUEUED', 'RUNNING', 'PASSED', 'FAILED', 'TIMED_OUT', 'UNKNOWN'] }).notNull(),
    steps: text('steps', { mode: 'json' })
      .$type<
        {
          name: 'typecheck' | 'lint' | 'test';
          status: 'PENDING' | 'RUNNING' | 'PASSED' | 'FAILED' | 'SKIPPED' | 'TIMED_OUT';
          durationMs: number | null;
          output: string;
        }[]
      >()
      .notNull(),
    files: text('files', { mode: 'json' }).$type<Record<string, StoredFile>>().notNull(),
    /** Due to start (QUEUED); once RUNNING, when the process running it is presumed dead (UNKNOWN); null once ended. */
    nextAttemptAt: integer('next_attempt_at'),
    createdAt: integer('created_at').notNull(),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('storefront_checks_site').on(t.siteId, t.status), index('storefront_checks_due').on(t.nextAttemptAt)],
);

/**
 * An editing environment of a site (spec 02 §4.2, §8): the working files served live by the storefront dev
 * server while READY. Sleeps 15 minutes after its last activity, closes 30 minutes after its last file
 * write, check or build (with a notice 5 minutes before).
 */
export const editing = sqliteTable(
  'storefront_editing',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    siteId: text('site_id').notNull(),
    status: text('status', { enum: ['STARTING', 'READY', 'SLEEPING', 'CLOSED'] }).notNull(),
    startedBy: text('started_by').notNull(),
    url: text('url'),
    lastActiveAt: integer('last_active_at').notNull(),
    lastWorkAt: integer('last_work_at').notNull(),
    noticeSentAt: integer('notice_sent_at'),
    /** When the job next looks at it (sleep, notice or close); null once CLOSED. */
    nextAttemptAt: integer('next_attempt_at'),
    createdAt: integer('created_at').notNull(),
    closedAt: integer('closed_at'),
  },
  (t) => [
    index('storefront_editing_site').on(t.siteId, t.status),
    index('storefront_editing_status').on(t.status),
    index('storefront_editing_due').on(t.nextAttemptAt),
  ],
);
