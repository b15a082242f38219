import { Command, Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { ApiCommand } from '../api-command.js';
import type { BuildOutput } from './build.js';
import { ProjectError, readProject, type AppProject } from './project.js';

/** The bundle of an external-runtime version: the service runs nothing of it (calls go to `external.url`). */
const EXTERNAL_BUNDLE = '/* runtime: external */';

export interface ExecutionView {
  executionId: string;
  installationId: string;
  kind: string;
  name: string;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
  logs: string[];
  durationMs: number;
  createdAt: string;
}

/** The fields of an installation the commands show. */
export interface InstallationView {
  installationId: string;
  app: { appId: string; handle: string; name: string };
  version: number;
  pendingVersion: { version: number; requires: Record<string, string[]> } | null;
  permissions: { scopes: string[]; hosts: string[] };
  tools: { name: string; description: string }[];
  settings: Record<string, unknown>;
  needsSetup: boolean;
  missingSettings: string[];
}

/**
 * Base of the `svc app …` commands: the app folder (`--dir`, default the current one), the project's
 * errors rendered with the key path or file they concern (exit 1), and listr2 tasks for long work.
 */
export abstract class AppCommand<T extends typeof Command> extends ApiCommand<T> {
  static override baseFlags = {
    ...ApiCommand.baseFlags,
    dir: Flags.string({ description: 'The app folder (holds manifest.json)', default: '.', helpGroup: 'GLOBAL' }),
  };

  protected get dir(): string {
    return resolve((this.flags as { dir: string }).dir);
  }

  protected project() {
    const project = readProject(this.dir);
    for (const w of project.warnings) this.warn(w);
    return project;
  }

  /** The app's id on the service, by the manifest's handle; null when never deployed. */
  protected async appIdOf(handle: string): Promise<string | null> {
    const found = await this.request<{ contents: { appId: string }[] }>('GET', '/v1/developer/apps', { query: { handle } });
    return found.contents[0]?.appId ?? null;
  }

  /** Uploads a build as the app's next version, registering the app on its first deploy. */
  protected async deployBuild(build: BuildOutput) {
    return this.uploadVersion(build.project, { code: build.code, map: build.map, functions: build.functions, adminPage: build.adminPage });
  }

  /**
   * Uploads a `runtime: "external"` app's next version: its manifest, which carries `external.url`. Its code
   * runs on that server, so the version's bundle defines no function.
   */
  protected async deployExternal(project: AppProject) {
    return this.uploadVersion(project, { code: EXTERNAL_BUNDLE, functions: [] });
  }

  private async uploadVersion(project: AppProject, bundle: { code: string; map?: string; functions: string[]; adminPage?: string }) {
    const { raw, manifest } = project;
    const appId =
      (await this.appIdOf(manifest.handle)) ?? (await this.request<{ appId: string }>('POST', '/v1/developer/apps', { body: { manifest: raw } })).appId;
    const version = await this.request<{ version: number; versionId: string }>('POST', `/v1/developer/apps/${appId}/versions`, {
      body: { manifest: raw, bundle },
    });
    return { appId, version: version.version };
  }

  /** Installs the app in the chosen store, or consents to its pending version when installed already. */
  protected async installApp(handle: string) {
    return this.storeRequest<InstallationView>('POST', '/v1/apps/installations', { body: { handle } });
  }

  /** The store's live installation of the app, by handle. */
  protected async installationOf(handle: string): Promise<InstallationView | null> {
    const list = await this.storeRequest<{ contents: InstallationView[] }>('GET', '/v1/apps/installations');
    return list.contents.find((i) => i.app.handle === handle) ?? null;
  }

  /** Runs of the app's code newer than `after` (an execution id), oldest first. */
  protected async logsSince(appId: string, after: string | null, limit = 50): Promise<ExecutionView[]> {
    const page = await this.request<{ contents: ExecutionView[] }>('GET', `/v1/developer/apps/${appId}/logs`, { query: { limit } });
    return page.contents.filter((x) => after === null || x.executionId > after).reverse();
  }

  protected printExecution(x: ExecutionView) {
    const head = `${x.createdAt}  ${x.kind.toLowerCase()} ${x.name}  ${x.status}${x.errorCode ? ` ${x.errorCode}` : ''}  ${x.durationMs} ms  (${x.installationId})`;
    this.log(head);
    for (const line of x.logs) this.log(`    ${line}`);
    if (x.errorMessage) this.log(`    ✗ ${x.errorMessage}`);
  }

  protected override async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }) {
    if (error instanceof ProjectError) {
      if (this.flags?.json) this.log(JSON.stringify({ code: error.code, message: error.message, issues: error.issues }, null, 2));
      else {
        this.logToStderr(`✗ ${error.code}: ${error.message}`);
        for (const i of error.issues) this.logToStderr(`  - ${i.field || '(manifest)'}: ${i.message} (${i.code})`);
      }
      this.exit(1);
    }
    return super.catch(error);
  }
}
