/**
 * The header an MCP server sends on every API call it makes for an AI agent, with the value `mcp`
 * (spec 01 §5.6: the local MCP client is an agent whatever its token).
 */
export const AGENT_HEADER = 'x-svc-agent';
