import { Command, Flags, type Interfaces } from '@oclif/core';
import { readFileSync } from 'node:fs';
import stringWidth from 'string-width';
import { ApiCallError, ApiClient, ConnectionError, type RequestOptions } from '../client/api-client.js';
import { DEFAULT_API_URL, DEFAULT_PROFILE, readConfig } from '../client/config.js';
import { UsageError } from './usage-error.js';

export type GlobalFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof ApiCommand)['baseFlags'] & T['flags']>;
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>;

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

  protected get client(): ApiClient {
    if (!this.cachedClient) {
      const profile = readConfig().profiles[this.profileName];
      if (!profile && this.profileName !== DEFAULT_PROFILE) throw new UsageError(`no profile named "${this.profileName}" (svc profiles list)`);
      this.cachedClient = new ApiClient({
        profile: this.profileName,
        apiUrl: process.env.SVC_API_URL ?? profile?.apiUrl ?? DEFAULT_API_URL,
        token: process.env.SVC_TOKEN,
      });
    }
    return this.cachedClient;
  }

  /** The store of the request: --store, SVC_STORE_ID, then the profile; a store code is looked up once. */
  protected async storeId(): Promise<string> {
    if (this.resolvedStoreId) return this.resolvedStoreId;
    const given = this.flags.store ?? process.env.SVC_STORE_ID ?? readConfig().profiles[this.profileName]?.storeId;
    if (!given) throw new UsageError('no store chosen: pass --store, set SVC_STORE_ID, or save one with svc profiles add NAME --api-url URL --default-store ID');
    if (given.startsWith('st_')) return (this.resolvedStoreId = given);
    const stores = await this.client.request<{ contents: { storeId: string; code: string }[] }>('GET', '/v1/me/stores');
    const match = stores.data.contents.find((s) => s.code === given);
    if (!match) throw new UsageError(`no store with code "${given}" in this token's store scope`);
    return (this.resolvedStoreId = match.storeId);
  }

  /** A request in the chosen store; returns the envelope's data. */
  protected async storeRequest<D = any>(method: string, path: string, options: RequestOptions = {}): Promise<D> {
    return (await this.client.request<D>(method, path, { ...options, storeId: await this.storeId() })).data;
  }

  protected async request<D = any>(method: string, path: string, options: RequestOptions = {}): Promise<D> {
    return (await this.client.request<D>(method, path, options)).data;
  }

  /** `--json`: the data alone; otherwise the command's own rendering. */
  protected output(data: unknown, human: () => void) {
    if (this.flags.json) this.log(JSON.stringify(data, null, 2));
    else human();
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

  protected table(rows: Record<string, unknown>[], columns: string[]) {
    if (rows.length === 0) {
      this.log('(none)');
      return;
    }
    const cell = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    // Korean text takes two columns per character in a terminal: pad by display width, not length.
    const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - stringWidth(text)));
    const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => stringWidth(cell(r[c])))));
    this.log(columns.map((c, i) => pad(c.toUpperCase(), widths[i])).join('  ').trimEnd());
    for (const r of rows) this.log(columns.map((c, i) => pad(cell(r[c]), widths[i])).join('  ').trimEnd());
  }

  protected override async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }) {
    if (error instanceof ApiCallError) {
      if (this.flags?.json) this.log(JSON.stringify(error.body, null, 2));
      else {
        this.logToStderr(`✗ ${error.body.code}: ${error.body.message}`);
        for (const f of error.body.fieldErrors ?? []) this.logToStderr(`  - ${f.field || '(body)'}: ${f.code} ${f.message}`);
        if (error.body.details && Object.keys(error.body.details).length) this.logToStderr(`  details: ${JSON.stringify(error.body.details)}`);
        if (error.body.traceId) this.logToStderr(`  traceId: ${error.body.traceId}`);
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
