import { Flags } from '@oclif/core';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiCommand } from '../cli/api-command.js';
import { UsageError } from '../cli/usage-error.js';
import { ApiClient, ConnectionError } from '../client/api-client.js';
import { writeCredential } from '../client/config.js';
import { openBrowser } from '../cli/open-browser.js';

const CLI_CLIENT = 'svc-cli';
const LOGIN_TIMEOUT_MS = 5 * 60_000;

export default class Login extends ApiCommand<typeof Login> {
  static override summary = 'Log in: OAuth with PKCE in the browser, or save an access token with --token';
  static override description =
    'Without --token, opens the authorization page (or prints its URL when no browser can be opened) and waits for the redirect on a loopback port. Credentials are saved per profile with file mode 0600.';
  static override examples = ['<%= config.bin %> login', '<%= config.bin %> login --profile prod', '<%= config.bin %> login --token "$SVC_ACCESS_TOKEN"'];
  static override flags = {
    token: Flags.string({ description: 'Save this access token instead of logging in through the browser' }),
    'no-browser': Flags.boolean({ description: 'Only print the URL; do not try to open a browser' }),
  };

  async run() {
    // The login is saved for this address and sent nowhere else (see ApiCommand.apiUrl).
    const apiUrl = this.apiUrl;
    const client = new ApiClient({ apiUrl, profile: this.profileName, token: this.flags.token || undefined });
    if (this.flags.token !== undefined) {
      if (!this.flags.token) throw new UsageError('--token needs a value');
      const me = (await client.request('GET', '/auth/v1/me')).data;
      writeCredential(this.profileName, { kind: 'token', token: this.flags.token, apiUrl: client.apiUrl });
      this.output({ profile: this.profileName, userId: me.userId, email: me.email, kind: 'token' }, () =>
        this.log(`Saved the access token of ${me.email} for profile ${this.profileName}.`),
      );
      return;
    }

    await this.checkServer(client);
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const { code, redirectUri } = await this.waitForAuthorization(client.apiUrl, verifier, state);
    const { status, body } = await client.oauth('/auth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: CLI_CLIENT,
      code_verifier: verifier,
    });
    if (status !== 200) throw new UsageError(`login failed: ${body.error_description ?? body.error ?? status}`);
    writeCredential(this.profileName, {
      kind: 'login',
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      expiresAt: Date.now() + body.expires_in * 1000,
      clientId: CLI_CLIENT,
      apiUrl: client.apiUrl,
    });
    const me = (await new ApiClient({ apiUrl: client.apiUrl, profile: this.profileName }).request('GET', '/auth/v1/me')).data;
    this.output({ profile: this.profileName, userId: me.userId, email: me.email, kind: 'login' }, () =>
      this.log(`Logged in as ${me.email} (profile ${this.profileName}).`),
    );
  }

  /** Before a browser is involved: the address answers, and as an svc service (its authorization server metadata, RFC 8414). */
  private async checkServer(client: ApiClient) {
    const answer = await client.raw('GET', '/.well-known/oauth-authorization-server/auth', { anonymous: true });
    let metadata: { authorization_endpoint?: unknown } | null = null;
    try {
      metadata = JSON.parse(answer.text);
    } catch {
      // Not JSON: said below.
    }
    if (answer.status !== 200 || typeof metadata?.authorization_endpoint !== 'string') {
      throw new ConnectionError(
        `${client.apiUrl} answered HTTP ${answer.status} but is not an svc service (no authorization server metadata): check the profile's API URL (svc profiles list)`,
      );
    }
  }

  /** RFC 8252: a one-shot HTTP listener on a random loopback port receives the authorization code. */
  private async waitForAuthorization(apiUrl: string, verifier: string, state: string) {
    let settle!: { ok: (code: string) => void; ko: (e: Error) => void };
    const received = new Promise<string>((ok, ko) => (settle = { ok, ko }));
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback') return void res.writeHead(404).end();
      const error = url.searchParams.get('error');
      const done = (title: string) =>
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><meta charset="utf-8"><title>svc</title><p style="font-family:sans-serif">${title}</p>`);
      if (url.searchParams.get('state') !== state) return done('요청이 일치하지 않습니다 (state). 터미널에서 다시 시도하세요.');
      if (error) {
        done('로그인이 거부되었습니다. 이 창을 닫아도 됩니다.');
        return settle.ko(new UsageError(`login was not approved (${error})`));
      }
      done('로그인되었습니다. 이 창을 닫고 터미널로 돌아가세요.');
      settle.ok(url.searchParams.get('code') ?? '');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
    const authorize = new URL(`${apiUrl}/auth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: CLI_CLIENT,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state,
    }).toString();

    this.logToStderr(`Open this address to log in:\n  ${authorize}`);
    if (!this.flags['no-browser']) await openBrowser(authorize.toString());
    this.logToStderr('waiting for the browser… (Ctrl-C to stop)');
    const timer = setTimeout(() => settle.ko(new UsageError('login timed out after 5 minutes')), LOGIN_TIMEOUT_MS);
    try {
      return { code: await received, redirectUri };
    } finally {
      clearTimeout(timer);
      server.close();
    }
  }
}
