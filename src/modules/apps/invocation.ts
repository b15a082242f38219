// One call of an app function: what it runs on, what it receives besides its input, and how it ended.
import type { App, AppVersion, Installation } from './app-records.js';

export interface InvokeTarget {
  app: App;
  installation: Installation;
  version: AppVersion;
}

export type InvokeOutcome<T = unknown> =
  | { ok: true; value: T; logs: string[]; durationMs: number }
  /** `appError`: the app's own code failed (it counts towards suspension); otherwise the platform did. */
  | { ok: false; code: string; message: string; appError: boolean; logs: string[]; durationMs: number };

/** What every function receives besides its input: which store, its settings, and an API client's credentials. */
export interface FunctionContext {
  /** The same on every retry of one delivery (flow notifications). */
  invocationId?: string;
  storeId: string;
  installationId: string;
  app: { appId: string; handle: string; version: number };
  settings: Installation['settings'];
  api: { baseUrl: string; token: string; tokenExpiresAt: string };
}
