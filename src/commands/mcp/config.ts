import { Flags } from '@oclif/core';
import { join } from 'node:path';
import { ApiCommand } from '../../cli/api-command.js';
import { packageRoot } from '../../paths.js';

/** Where each client keeps its MCP servers, and how it names a local (stdio) and a remote (HTTP) one. */
const CLIENTS = {
  claude: {
    file: 'Claude Desktop: claude_desktop_config.json (Settings → Developer → Edit Config); Claude Code: .mcp.json',
    wrap: (server: object) => ({ mcpServers: { svc: server } }),
    remote: (url: string) => ({ type: 'http', url }),
  },
  cursor: {
    file: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
    wrap: (server: object) => ({ mcpServers: { svc: server } }),
    remote: (url: string) => ({ url }),
  },
  vscode: {
    file: '.vscode/mcp.json (or the user settings\' "mcp" section)',
    wrap: (server: object) => ({ servers: { svc: server } }),
    remote: (url: string) => ({ type: 'http', url }),
  },
} as const;

export default class McpConfig extends ApiCommand<typeof McpConfig> {
  static override summary = "Print the MCP configuration snippet of a client: local (svc mcp over stdio) or --remote (the service's /mcp)";
  static override examples = ['<%= config.bin %> mcp config --client claude', '<%= config.bin %> mcp config --client vscode --remote'];
  static override flags = {
    client: Flags.string({ description: 'The MCP client', options: Object.keys(CLIENTS), required: true }),
    remote: Flags.boolean({ description: "Connect to the service's /mcp over HTTP (the client logs in by OAuth) instead of running svc mcp locally" }),
  };

  async run() {
    const client = CLIENTS[this.flags.client as keyof typeof CLIENTS];
    const remoteUrl = `${this.apiUrl.replace(/\/$/, '')}/mcp${this.chosenStore ? `?store=${encodeURIComponent(this.chosenStore)}` : ''}`;
    // The CLI's own entry, run by this Node: works without a global install and without npx finding another "svc".
    const args = [join(packageRoot, 'bin', 'run.js'), 'mcp', '--profile', this.profileName, ...(this.chosenStore ? ['--store', this.chosenStore] : [])];
    const local = {
      ...(this.flags.client === 'vscode' ? { type: 'stdio' } : {}),
      command: process.execPath,
      args,
      // A token from the environment is not written into a config file: the client must be given it the same way.
      ...(this.tokenFromEnvironment ? { env: { SVC_API_URL: this.apiUrl, SVC_TOKEN: '<an access token: svc tokens create --name mcp>' } } : {}),
    };
    const config = client.wrap(this.flags.remote ? client.remote(remoteUrl) : local);
    this.output({ client: this.flags.client, remote: this.flags.remote, file: client.file, config }, () => {
      this.log(`# ${client.file}`);
      this.log(JSON.stringify(config, null, 2));
      if (!this.flags.remote && !this.tokenFromEnvironment)
        this.log(`# uses the saved login of profile "${this.profileName}" (svc login --profile ${this.profileName})`);
      if (this.flags.remote)
        this.log('# the client opens the svc login page once (OAuth); approve price changes and other held writes in the conversation or at approvalUrl');
    });
  }
}
