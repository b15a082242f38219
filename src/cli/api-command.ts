import { Command, Flags, type Interfaces } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { format } from 'node:util';
import type { ListrTask } from 'listr2';
import { ApiCallError, ApiClient, ConnectionError, type Envelope, type RequestOptions } from '../client/api-client.js';
import { DEFAULT_API_URL, DEFAULT_PROFILE, readConfig, readCredential, sameService } from '../client/config.js';
import { nextStep } from './error-hints.js';
import { colourMarks, terminalSafe, won } from './format.js';
import { UsageError } from './usage-error.js';

export type GlobalFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof ApiCommand)['baseFlags'] & T['flags']>;
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>;

/** A list's `--json` output: the API's page as it is, or a whole list as a page with no next one. */
export type ListOutput<T> =
  { contents: T[]; page: number; size: number; totalElements: number; totalPages: number } | { contents: T[]; nextCursor: string | null };

export function listOutput<T>(data: { contents: T[]; page?: number; nextCursor?: string | null }): ListOutput<T> {
  if ('page' in data || 'nextCursor' in data) return data as ListOutput<T>;
  return { contents: data.contents, nextCursor: null };
}

let pipeWatched = false;

/**
 * A reader that stopped reading (`svc orders list | head -1`) ends the command quietly with exit 0: what
 * it had to say was not wanted any more. Without this, the first write to the closed pipe crashes (EPIPE).
 */
function endQuietlyOnClosedPipe() {
  if (pipeWatched) return;
  pipeWatched = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

/** A table's header for a field: `storeId` → `STORE ID`. */
export const columnHeader = (field: string) => field.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toUpperCase();

/**
 * Base of every command that talks to the API. Global flags `--profile --store --json`, each with its
 * environment variable for CI (SVC_PROFILE, SVC_STORE_ID; SVC_API_URL and SVC_TOKEN have no flag);
 * flags win over variables, variables over the saved profile (DESIGN.md §4).
 * Exit codes: 0 success, 1 API error, 2 usage error.
 */
export abstract class ApiCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = false;
  static override baseFlags = {
    profile: Flags.string({ description: 'Profile to use (env SVC_PROFILE)', helpGroup: 'GLOBAL' }),
    store: Flags.string({ description: 'Store id or store code (env SVC_STORE_ID)', helpGroup: 'GLOBAL' }),
    json: Flags.boolean({ description: "Print only the response's data (or the error object) as JSON", helpGroup: 'GLOBAL' }),
  };

  protected flags!: GlobalFlags<T>;
  protected args!: CommandArgs<T>;
  private cachedClient: ApiClient | undefined;
  private resolvedStoreId: string | undefined;

  override async init() {
    endQuietlyOnClosedPipe();
    await super.init();
    const { args, flags } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof ApiCommand).baseFlags,
      args: this.ctor.args,
      strict: this.ctor.strict,
    });
    this.flags = flags as GlobalFlags<T>;
    this.args = args as CommandArgs<T>;
  }

  protected get profileName(): string {
    return this.flags.profile ?? process.env.SVC_PROFILE ?? readConfig().currentProfile ?? DEFAULT_PROFILE;
  }

  /** The profile for a message printed while failing, when the flags may not have been parsed. */
  private profileNameOrDefault(): string {
    try {
      return this.flags ? this.profileName : DEFAULT_PROFILE;
    } catch {
      return DEFAULT_PROFILE;
    }
  }

  /** The profile's service address. */
  private get profileUrl(): string {
    const profile = readConfig().profiles[this.profileName];
    if (!profile && this.profileName !== DEFAULT_PROFILE) throw new UsageError(`no profile named "${this.profileName}" (svc profiles list)`);
    return profile?.apiUrl ?? DEFAULT_API_URL;
  }

  /**
   * The service to talk to: SVC_API_URL, else the profile's. A saved login is sent only to the service it
   * came from, so SVC_API_URL naming another one needs its own SVC_TOKEN.
   */
  protected get apiUrl(): string {
    const profileUrl = this.profileUrl;
    const envUrl = process.env.SVC_API_URL;
    if (envUrl === undefined || sameService(envUrl, profileUrl)) return envUrl ?? profileUrl;
    if (process.env.SVC_TOKEN) return envUrl;
    throw new UsageError(
      `SVC_API_URL is ${envUrl}, but profile "${this.profileName}" is for ${profileUrl} and its saved login is never sent elsewhere: set SVC_TOKEN for ${envUrl} too, or use a profile of its own (svc profiles add NAME --api-url ${envUrl})`,
    );
  }

  /** Whether the token comes from SVC_TOKEN rather than the profile's saved credential. */
  protected get tokenFromEnvironment(): boolean {
    return Boolean(process.env.SVC_TOKEN);
  }

  protected get client(): ApiClient {
    if (!this.cachedClient) {
      const apiUrl = this.apiUrl;
      const saved = this.tokenFromEnvironment ? undefined : readCredential(this.profileName);
      if (saved?.apiUrl && !sameService(saved.apiUrl, apiUrl)) {
        throw new UsageError(
          `the saved login of profile "${this.profileName}" is for ${saved.apiUrl}, and the profile now points at ${apiUrl}: log in there with svc login --profile ${this.profileName}`,
        );
      }
      this.cachedClient = new ApiClient({ profile: this.profileName, apiUrl, token: process.env.SVC_TOKEN || undefined });
    }
    return this.cachedClient;
  }

  /** The store named by --store, SVC_STORE_ID or the profile (an id or a code: the service takes both). */
  protected get chosenStore(): string | undefined {
    return this.flags.store || process.env.SVC_STORE_ID || readConfig().profiles[this.profileName]?.storeId || undefined;
  }

  /** The store of the request: the chosen one, else the only store the token reaches. */
  protected async storeId(): Promise<string> {
    this.resolvedStoreId ??= this.chosenStore ?? (await this.onlyStore());
    return this.resolvedStoreId;
  }

  /**
   * The one store in the token's reach, for commands run with no store named. The store list needs
   * `stores:read`; a token without it still knows its store scope.
   */
  private async onlyStore(): Promise<string> {
    const hint = 'pass --store (an id or code), set SVC_STORE_ID, or save one with svc profiles add NAME --api-url URL --default-store CODE';
    let names: string[];
    try {
      names = (await this.request<{ contents: { code: string }[] }>('GET', '/v1/me/stores')).contents.map((s) => s.code);
    } catch (error) {
      if (!(error instanceof ApiCallError && error.body.code === 'INSUFFICIENT_SCOPE')) throw error;
      const me = await this.request<{ token: { storeScope: { all: boolean; storeIds?: string[] } } }>('GET', '/auth/v1/me');
      if (me.token.storeScope.all) throw new UsageError(`no store chosen, and this token cannot list its stores (no stores:read): ${hint}`);
      names = me.token.storeScope.storeIds ?? [];
    }
    if (names.length === 1) return names[0];
    throw new UsageError(names.length === 0 ? 'this token reaches no store' : `no store chosen among ${names.join(', ')}: ${hint}`);
  }

  /** A request in the chosen store; returns the envelope's data. */
  protected async storeRequest<D = any>(method: string, path: string, options: RequestOptions = {}): Promise<D> {
    return this.settled(await this.client.request<D>(method, path, { ...options, storeId: await this.storeId() }));
  }

  protected async request<D = any>(method: string, path: string, options: RequestOptions = {}): Promise<D> {
    return this.settled(await this.client.request<D>(method, path, options));
  }

  /**
   * An agent token's write that needs a person's approval (202 APPROVAL_REQUIRED) ends the command here,
   * for every command alike: the approval request is printed (or its data with --json) and the exit is 0.
   */
  private settled<D>(envelope: Envelope<D>): D {
    if (envelope.meta.code !== 'APPROVAL_REQUIRED') return envelope.data;
    const approval = envelope.data as { approvalId: string; reason: string; expiresAt: string; approvalUrl: string };
    this.output(approval, () =>
      this.log(`Waiting for approval ${approval.approvalId} (${approval.reason}), until ${approval.expiresAt}: ${approval.approvalUrl}`),
    );
    return this.exit(0);
  }

  /** Steps shown with listr2 at a terminal, as plain lines in CI, and not at all with --json. */
  protected async tasks<C extends object>(list: ListrTask<C>[], ctx: C): Promise<C> {
    const { Listr } = await import('listr2');
    const renderer = this.flags.json ? 'silent' : process.stdout.isTTY && !process.env.CI ? 'default' : 'simple';
    return new Listr<C>(list, { renderer, exitOnError: true, rendererOptions: { collapseErrors: false } } as never).run(ctx);
  }

  /** Every line a command prints, made safe for a terminal in one place (see terminalSafe), its ✓/✗ coloured at a terminal. */
  override log(message = '', ...args: unknown[]) {
    const line = terminalSafe(format(message, ...args));
    super.log(this.flags?.json ? line : colourMarks(line, process.stdout));
  }

  override logToStderr(message = '', ...args: unknown[]) {
    const line = terminalSafe(format(message, ...args));
    super.logToStderr(this.flags?.json ? line : colourMarks(line, process.stderr));
  }

  /** `--json`: the data alone; otherwise the command's own rendering. */
  protected output(data: unknown, human: () => void) {
    if (this.flags.json) this.log(JSON.stringify(data, null, 2));
    else human();
  }

  /** A list: `--json` prints one of the two page shapes (see listOutput); otherwise the command's rendering. */
  protected outputList<T>(data: { contents: T[]; page?: number; nextCursor?: string | null }, human: (contents: T[]) => void) {
    this.output(listOutput(data), () => human(data.contents));
  }

  /** Reads `--data` given as inline JSON or `@file.json`. */
  protected readJsonInput(value: string, flag = 'data'): unknown {
    let text = value;
    if (value.startsWith('@')) {
      try {
        text = readFileSync(value.slice(1), 'utf8');
      } catch (error) {
        // A missing or unreadable file is the caller's input error (exit 2), not a crash.
        throw new UsageError(`--${flag} cannot read ${value.slice(1)} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new UsageError(`--${flag} is not valid JSON${value.startsWith('@') ? ` (file ${value.slice(1)})` : ''}`);
    }
  }

  /** `--data` that must be one JSON object (a request body that flags may add fields to). */
  protected readJsonObject(value: string, flag = 'data'): Record<string, unknown> {
    const body = this.readJsonInput(value, flag);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new UsageError(`--${flag} must be a JSON object`);
    return body as Record<string, unknown>;
  }

  /** Prompts only for people at a terminal; scripts and CI get a usage error naming the flag. */
  protected async ask(flag: string, message: string, options: { secret?: boolean } = {}): Promise<string> {
    if (!process.stdin.isTTY || process.env.CI) throw new UsageError(`missing --${flag}`);
    const { input, password } = await import('@inquirer/prompts');
    return options.secret ? password({ message }) : input({ message });
  }

  /**
   * Rows under spaced, upper-case headers (`storeId` → `STORE ID`); the `money` columns are amounts in won,
   * written as people read them (`12,900원`) and aligned right.
   */
  protected table(rows: Record<string, unknown>[], columns: string[], options: { money?: string[] } = {}) {
    if (rows.length === 0) {
      this.log('(none)');
      return;
    }
    const money = new Set(options.money);
    const text = (c: string, v: unknown) =>
      money.has(c) && (typeof v === 'number' || v === null || v === undefined)
        ? won(v)
        : v === null || v === undefined
          ? '-'
          : typeof v === 'object'
            ? JSON.stringify(v)
            : String(v);
    const cell = (c: string, v: unknown) => terminalSafe(text(c, v), true);
    // Korean text takes two columns per character in a terminal: pad by display width, not length.
    const stringWidth = displayWidth();
    const gap = (text: string, width: number) => ' '.repeat(Math.max(0, width - stringWidth(text)));
    const pad = (c: string, text: string, width: number) => (money.has(c) ? gap(text, width) + text : text + gap(text, width));
    const headers = columns.map(columnHeader);
    const widths = columns.map((c, i) => Math.max(stringWidth(headers[i]), ...rows.map((r) => stringWidth(cell(c, r[c])))));
    this.log(
      columns
        .map((c, i) => pad(c, headers[i], widths[i]))
        .join('  ')
        .trimEnd(),
    );
    for (const r of rows)
      this.log(
        columns
          .map((c, i) => pad(c, cell(c, r[c]), widths[i]))
          .join('  ')
          .trimEnd(),
      );
  }

  protected override async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }) {
    if (error instanceof ApiCallError) {
      if (this.flags?.json) this.log(JSON.stringify(error.body, null, 2));
      else {
        this.logToStderr(`✗ ${error.body.code}: ${error.body.message}`);
        for (const f of error.body.fieldErrors ?? []) this.logToStderr(`  - ${f.field || '(body)'}: ${f.code} ${f.message}`);
        if (error.body.details && Object.keys(error.body.details).length) this.logToStderr(`  details: ${JSON.stringify(error.body.details)}`);
        if (error.body.traceId) this.logToStderr(`  traceId: ${error.body.traceId}`);
        const next = nextStep(error.body, { profile: this.profileNameOrDefault(), store: this.resolvedStoreId ?? this.chosenStore });
        if (next) this.logToStderr(`  next: ${next}`);
      }
      this.exit(1);
    }
    if (error instanceof ConnectionError) {
      if (this.flags?.json) this.log(JSON.stringify({ code: 'CONNECTION_FAILED', message: error.message }));
      else this.logToStderr(`✗ ${error.message}`);
      this.exit(1);
    }
    if (error instanceof UsageError) {
      if (this.flags?.json) this.log(JSON.stringify({ code: 'USAGE', message: error.message }));
      else this.logToStderr(`✗ ${error.message}`);
      this.exit(2);
    }
    // oclif's own parse errors (unknown flag, missing argument) already exit 2. The flags were not parsed
    // then, so --json is looked for in the raw arguments.
    if (error.oclif?.exit === 2 && this.argv.includes('--json')) this.log(JSON.stringify({ code: 'USAGE', message: error.message }));
    return super.catch(error);
  }
}

/**
 * string-width, loaded when a table is first printed: its module builds Unicode-property regular expressions
 * and a segmenter when it loads, ~4% of every CLI start (svc dev's too) for the few commands that print a
 * table (issue 31). Through require (Node loads an ES module synchronously so), the bundle leaves it out.
 */
function displayWidth(): typeof import('string-width').default {
  return (createRequire(import.meta.url)('string-width') as typeof import('string-width')).default;
}
