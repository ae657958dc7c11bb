// The official TypeScript MCP client 2.x (@modelcontextprotocol/client) against a running
// a207-router-mcp: how it connects, request by request.
//
//   MCP_BEARER_TOKEN=... node client2.mjs <mcp-url>
//
// Connects twice: with the default version negotiation (2.4.0: 'legacy', initialize only) and with
// versionNegotiation { mode: 'auto' } (server/discover first, initialize when the server offers no
// 2026-07-28 version). Each time it lists the tools and calls check_permission once. Prints one
// JSON document: {sdkVersion, runs: {<mode>: {protocolVersion, serverName, instructions, tools,
// allow, http}}} where http lists every exchange as [verb, JSON-RPC method or null, status] in order.
// Exits 1 (with a message on stderr) when a connection fails.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url] = process.argv.slice(2);
const token = process.env.MCP_BEARER_TOKEN;
if (!url || !token) {
  process.stderr.write('usage: MCP_BEARER_TOKEN=... node client2.mjs <mcp-url>\n');
  process.exit(1);
}
const here = dirname(fileURLToPath(import.meta.url));
const sdkVersion = JSON.parse(
  readFileSync(join(here, 'node_modules', '@modelcontextprotocol', 'client', 'package.json'), 'utf8'),
).version;

async function run(mode) {
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
    http.push([init?.method ?? 'GET', rpcMethod, response.status]);
    return response;
  }
  const options = mode === 'default' ? {} : { versionNegotiation: { mode } };
  const client = new Client({ name: 'a207-interop-ts2', version: '0.0.0' }, options);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: recordingFetch,
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const result = await client.callTool({
    name: 'check_permission',
    arguments: { caller: 'doctor_assistant', mcp: 'a207-lis-mcp', action: 'read' },
  });
  const out = {
    protocolVersion: client.getNegotiatedProtocolVersion?.() ?? null,
    serverName: client.getServerVersion()?.name ?? null,
    instructions: client.getInstructions() ?? null,
    tools,
    allow: result.structuredContent?.allow ?? null,
    http,
  };
  await client.close();
  return out;
}

const runs = {};
for (const mode of ['default', 'auto']) {
  try {
    runs[mode] = await run(mode);
  } catch (error) {
    process.stderr.write(`client2.mjs: ${mode}: ${error?.stack ?? error}\n`);
    process.exit(1);
  }
}
process.stdout.write(JSON.stringify({ sdkVersion, runs }));
