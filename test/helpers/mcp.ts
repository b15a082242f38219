import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliEnv, packageRoot } from './cli.js';

/** A tool's answer: the parsed JSON text, whether it is an error, and the API's status and code. */
export interface ToolAnswer<T = any> {
  isError: boolean;
  value: T;
  status: number;
  code: string | null;
}

export async function callTool<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer<T>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.find((c) => c.type === 'text')?.text ?? 'null';
  const meta = (result._meta ?? {}) as { status?: number; code?: string | null };
  return { isError: result.isError === true, value: JSON.parse(text) as T, status: meta.status ?? 0, code: meta.code ?? null };
}

/** The SDK's client connected over stdio to a spawned `svc mcp` (the compiled CLI, as a desktop client runs it). */
export async function stdioClient(vars: Record<string, string>, args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/run.js', 'mcp', ...args],
    cwd: packageRoot,
    env: cliEnv(vars),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
