// The official TypeScript MCP client against a running a207-router-mcp.
//
//   MCP_BEARER_TOKEN=... node client.mjs <mcp-url> <calls.json>
//   MCP_OAUTH_CLIENT_ID=... MCP_OAUTH_CLIENT_SECRET=... MCP_OAUTH_ISSUER=... MCP_OAUTH_SCOPE=... node client.mjs <mcp-url> <calls.json>
//
// The token comes from the environment only (an argument would show in process listings). With
// the MCP_OAUTH_* variables instead, the SDK's own ClientCredentialsProvider gets its token: from the
// first 401 it reads resource_metadata, finds the authorization server (which must be
// MCP_OAUTH_ISSUER), and obtains a client-credentials token for the server's resource.
// calls.json is a JSON array of {"tool": name, "arguments": {...}}. Prints one JSON document:
// {sdkVersion, protocolVersion, serverInfo, capabilities, instructions, tools, results, http}
// where results[i] is {tool, inputValid, via, sdkError, isError, structuredContent, content}:
// `inputValid` is whether the SDK's own JSON Schema validator (AjvJsonSchemaValidator) accepts the
// arguments against the tool's listed inputSchema (the call is sent either way); `via` is
// "callTool" when Client.callTool returned; when it threw (`sdkError` holds the message), the same
// call is sent again as a plain tools/call request (`via` "request") so the wire answer can still be
// compared. http lists every HTTP exchange as [verb, JSON-RPC method or null, status, URL path].
// Exits 1 (with a message on stderr) only when it cannot connect or list the tools.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

const TIMEOUT_MS = 15000;

function fail(message) {
  process.stderr.write(`client.mjs: ${message}\n`);
  process.exit(1);
}

const [url, callsPath] = process.argv.slice(2);
const token = process.env.MCP_BEARER_TOKEN;
const oauth = process.env.MCP_OAUTH_CLIENT_ID
  ? {
      clientId: process.env.MCP_OAUTH_CLIENT_ID,
      clientSecret: process.env.MCP_OAUTH_CLIENT_SECRET,
      expectedIssuer: process.env.MCP_OAUTH_ISSUER,
      // SDK 1.32.2 requests only the provider's own scope in a client-credentials token request
      // (fetchToken reads clientMetadata.scope, not the discovered scopes_supported or the challenge).
      scope: process.env.MCP_OAUTH_SCOPE,
    }
  : null;
if (!url || !callsPath) fail('usage: MCP_BEARER_TOKEN=... node client.mjs <mcp-url> <calls.json>');
if (!token && !oauth) fail('neither MCP_BEARER_TOKEN nor MCP_OAUTH_CLIENT_ID is set');

const here = dirname(fileURLToPath(import.meta.url));
const sdkVersion = JSON.parse(
  readFileSync(join(here, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8'),
).version;
const calls = JSON.parse(readFileSync(callsPath, 'utf8'));

// Record each exchange (verb, JSON-RPC method, status) without touching the bodies the SDK reads.
const http = [];
async function recordingFetch(input, init) {
  let rpcMethod = null;
  if (typeof init?.body === 'string') {
    try {
      rpcMethod = JSON.parse(init.body).method ?? null;
    } catch {
      rpcMethod = null;
    }
  }
  const response = await fetch(input, init);
  const target = new URL(input instanceof Request ? input.url : String(input));
  http.push([init?.method ?? 'GET', rpcMethod, response.status, target.pathname]);
  return response;
}

const transport = new StreamableHTTPClientTransport(new URL(url), oauth
  ? { authProvider: new ClientCredentialsProvider(oauth), fetch: recordingFetch }
  : { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: recordingFetch });
const client = new Client({ name: 'a207-interop-ts', version: '0.0.0' });

let tools;
try {
  await client.connect(transport, { timeout: TIMEOUT_MS });
  tools = (await client.listTools(undefined, { timeout: TIMEOUT_MS })).tools;
} catch (error) {
  await client.close().catch(() => {});
  fail(`connect/list failed: ${error?.stack ?? error}\nHTTP: ${JSON.stringify(http)}`);
}

function shape(call, via, sdkError, result) {
  return {
    tool: call.tool,
    via,
    sdkError,
    isError: result.isError ?? false,
    structuredContent: result.structuredContent ?? null,
    content: result.content,
  };
}

const validator = new AjvJsonSchemaValidator();
const inputValidators = Object.fromEntries(tools.map((tool) => [tool.name, validator.getValidator(tool.inputSchema)]));
function inputValid(call) {
  const check = inputValidators[call.tool];
  return check ? check(call.arguments).valid : null;
}

const results = [];
for (const call of calls) {
  const params = { name: call.tool, arguments: call.arguments };
  let sdkError = null;
  try {
    // callTool validates structuredContent against the tool's outputSchema (listed above).
    results.push({ ...shape(call, 'callTool', null, await client.callTool(params, undefined, { timeout: TIMEOUT_MS })),
                   inputValid: inputValid(call) });
    continue;
  } catch (error) {
    sdkError = String(error?.message ?? error);
  }
  try {
    const raw = await client.request({ method: 'tools/call', params }, CallToolResultSchema, { timeout: TIMEOUT_MS });
    results.push({ ...shape(call, 'request', sdkError, raw), inputValid: inputValid(call) });
  } catch (error) {
    results.push({ tool: call.tool, via: null, sdkError, requestError: String(error?.message ?? error), inputValid: inputValid(call) });
  }
}

const output = {
  sdkVersion,
  protocolVersion: transport.protocolVersion ?? null,
  serverInfo: client.getServerVersion() ?? null,
  capabilities: client.getServerCapabilities() ?? null,
  instructions: client.getInstructions() ?? null,
  tools: tools.map((tool) => tool.name),
  results,
  http,
};
await client.close();
process.stdout.write(JSON.stringify(output) + '\n');
