import { ApiCommand } from '../../cli/api-command.js';
import { readCredential } from '../../client/config.js';
import { AGENT_HEADER } from '../../mcp-server/headers.js';
import type { ApiCaller } from '../../mcp-server/server.js';

export default class Mcp extends ApiCommand<typeof Mcp> {
  static override summary = "Serve the svc MCP server over stdio for a desktop AI client, with this profile's login or SVC_TOKEN";
  static override description =
    "Every tool call is an AI agent's request (approval policy, AI-action count, audit source MCP). " +
    'Approvals are decided by a person at the approvalUrl the tools return. Set up a client with: svc mcp config --client claude';
  static override examples = ['<%= config.bin %> mcp --store dev-store', 'SVC_TOKEN=… SVC_API_URL=https://api.example.com <%= config.bin %> mcp'];

  async run() {
    // Without a credential every tool call would answer 401 while the client shows a server that started fine:
    // say how to get one instead, on stderr (stdout belongs to the protocol), where MCP clients show it.
    if (!this.tokenFromEnvironment && !readCredential(this.profileName)) {
      this.logToStderr(
        `✗ svc mcp has no credential for profile "${this.profileName}": set SVC_TOKEN to an access token (svc tokens create --agent --scopes …) or log in with svc login --profile ${this.profileName}`,
      );
      this.exit(1);
    }
    const client = this.client;
    // Calls go to the service like any command's, marked as the agent's: the service's pipeline decides.
    const callApi: ApiCaller = async (call) => {
      const answer = await client.raw(call.method, call.path, {
        query: call.query,
        body: call.body,
        storeId: call.storeId,
        idempotencyKey: call.idempotencyKey,
        dryRun: call.dryRun,
        headers: { [AGENT_HEADER]: 'mcp' },
      });
      try {
        return { status: answer.status, body: JSON.parse(answer.text) };
      } catch {
        return { status: answer.status, body: null };
      }
    };
    // The MCP SDK (with ajv) loads only here: every command of the CLI's bundle would pay for it otherwise.
    const [{ StdioServerTransport }, { createMcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../../mcp-server/server.js'),
    ]);
    const server = createMcpServer({ callApi, store: this.chosenStore, version: this.config.version });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((done) => (transport.onclose = done));
    await server.connect(transport);
    // stdout belongs to the protocol from here on; the server runs until the client closes stdin.
    process.stdin.on('end', () => void server.close());
    await closed;
  }
}
