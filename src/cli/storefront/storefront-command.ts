import { Command, Flags } from '@oclif/core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiCommand } from '../api-command.js';

export interface SiteView {
  enabled: boolean;
  siteId: string | null;
  slug?: string;
  /** Null in svc serve without a sites domain until a custom domain is connected. */
  url?: string | null;
  status?: string;
  visibility?: string;
  templateId?: string;
  templateVersion?: string | null;
  publishedVersionId?: string | null;
  provisioning?: { status: string; servedVersionId: string | null };
}

/** A site's address for people: its `url`, or why it has none yet. */
export const siteAddress = (site: Pick<SiteView, 'url'>) =>
  site.url ?? '(no address yet: this service serves sites on connected custom domains only — svc storefront domains add)';

export interface VersionView {
  versionId: string;
  number: string;
  templateVersion: string | null;
  published: boolean;
  createdAt: string;
  sizes: { serverBundle: number; static: number };
}

export interface Finding {
  package: string;
  version: string | null;
  reason: string;
  detail: string;
  advisory: string | null;
}

export interface BuildView {
  buildId: string;
  status: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  failureStage: string | null;
  errorCode: string | null;
  logTail: string;
  dependencies: { rejected: Finding[]; warnings: Finding[] };
  versionId: string | null;
}

/** A build that ended FAILED: the command prints its report and exits 1. */
export class BuildFailed extends Error {
  constructor(readonly build: BuildView) {
    super(`build ${build.buildId} failed at ${build.failureStage}: ${build.errorCode}`);
  }
}

/**
 * Base of the `svc storefront …` commands: the project folder (`--dir`, default the current one) and the
 * store's site on the service, with the waits long work needs (builds, provisioning).
 */
export abstract class StorefrontCommand<T extends typeof Command> extends ApiCommand<T> {
  static override baseFlags = {
    ...ApiCommand.baseFlags,
    dir: Flags.string({ description: 'The storefront project folder (holds svc.storefront.json)', default: '.', helpGroup: 'GLOBAL' }),
  };

  protected get dir(): string {
    return resolve((this.flags as { dir: string }).dir);
  }

  protected site() {
    return this.storeRequest<SiteView>('GET', '/v1/storefront/site');
  }

  protected async versions() {
    return (await this.storeRequest<{ contents: VersionView[] }>('GET', '/v1/storefront/site/versions')).contents;
  }

  /** A version named as `v3` or by its id. */
  protected async versionId(ref: string): Promise<string> {
    if (!/^v\d+$/.test(ref)) return ref;
    const found = (await this.versions()).find((v) => v.number === ref);
    if (!found) throw new Error(`no version ${ref} (svc storefront versions)`);
    return found.versionId;
  }

  protected async waitForBuild(buildId: string): Promise<BuildView> {
    for (;;) {
      const build = await this.storeRequest<BuildView>('GET', `/v1/storefront/site/builds/${buildId}`);
      if (build.status === 'SUCCEEDED' || build.status === 'FAILED') return build;
      await sleep(300);
    }
  }

  /** Waits until visitors get the published version (provisioning SYNCED), at most two minutes. */
  protected async waitForSynced(): Promise<SiteView> {
    const until = Date.now() + 120_000;
    for (;;) {
      const site = await this.site();
      if (site.provisioning?.status === 'SYNCED' && site.provisioning.servedVersionId === site.publishedVersionId) return site;
      if (Date.now() > until) return site;
      await sleep(300);
    }
  }

  /**
   * Writes the project's `src/svc-api.d.ts`: the buyer API's types from an OpenAPI document, the chosen server's
   * `GET /v1/openapi.json` when `remote`, else this package's own (built offline, no server needed).
   */
  protected async writeApiTypes(dir: string, remote = false) {
    const { API_TYPES_FILE, apiTypes, countOperations, offlineDocument } = await import('./api-types.js');
    let source: string | undefined;
    let document;
    if (remote) {
      source = `${this.apiUrl.replace(/\/+$/, '')}/v1/openapi.json`;
      const response = await fetch(source, { headers: { accept: 'application/json' } }).catch((error: Error) => {
        throw new Error(`cannot read ${source}: ${error.message}`);
      });
      if (!response.ok) throw new Error(`cannot read ${source}: HTTP ${response.status}`);
      document = await response.json();
    } else document = await offlineDocument();
    const file = join(dir, API_TYPES_FILE);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, apiTypes(document, { source }));
    return { file, source: source ?? 'offline', operations: countOperations(document) };
  }

  /** The dependency report of a build: refusals, then warnings. */
  protected printDependencies(build: BuildView) {
    const { rejected, warnings } = build.dependencies;
    if (rejected.length) {
      this.log(`Dependencies refused (${rejected.length}):`);
      this.table(
        rejected.map((r) => ({ ...r, version: r.version ?? '', advisory: r.advisory ?? '' })),
        ['reason', 'package', 'version', 'advisory', 'detail'],
      );
    }
    if (warnings.length) {
      this.log(`Dependency warnings (${warnings.length}):`);
      this.table(
        warnings.map((w) => ({ ...w, version: w.version ?? '', advisory: w.advisory ?? '' })),
        ['reason', 'package', 'version', 'advisory', 'detail'],
      );
    }
  }

  protected override async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }) {
    if (error instanceof BuildFailed) {
      const { build } = error;
      if (this.flags?.json) this.log(JSON.stringify(build, null, 2));
      else {
        this.logToStderr(`✗ Build ${build.buildId} failed at ${build.failureStage}: ${build.errorCode}`);
        this.printDependencies(build);
        this.logToStderr(
          build.logTail
            .split('\n')
            .slice(-25)
            .map((l) => `  ${l}`)
            .join('\n'),
        );
      }
      this.exit(1);
    }
    return super.catch(error);
  }
}
