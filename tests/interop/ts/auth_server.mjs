// A real authorization server for the OAuth interop tests: oidc-provider (pinned in package.json),
// on 127.0.0.1, issuing RFC 9068 JWT access tokens with the client_credentials grant and resource
// indicators (RFC 8707). Started by tests/interop/test_oauth_interop.py; never a deployment piece.
//
//   AS_RESOURCES='["http://127.0.0.1:PORT/mcp", ...]' AS_CLIENTS='[{"client_id", "client_secret", "scope"}]' \
//   AS_SCOPES='router router:doctor_assistant ...' node auth_server.mjs
//
// Prints one line `{"issuer": "http://127.0.0.1:N"}` once it listens. Signing keys are generated
// here at start. Two test-only routes on the same loopback port: POST /__rotate publishes a new key
// first in the JWKS (so new tokens carry a new kid; the old key stays published), GET /__stats
// answers {"jwksFetches": n, "kids": [...], "issued": [...]} (how often a resource server fetched the
// key set, and every access token issued: the tests' log audit looks for each in every log line).

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

import Provider, { errors } from 'oidc-provider';

function fail(message) {
  process.stderr.write(`auth_server.mjs: ${message}\n`);
  process.exit(1);
}

const resources = JSON.parse(process.env.AS_RESOURCES ?? 'null');
const clients = JSON.parse(process.env.AS_CLIENTS ?? 'null');
const scopes = process.env.AS_SCOPES;
if (!Array.isArray(resources) || !Array.isArray(clients) || !scopes) fail('AS_RESOURCES, AS_CLIENTS and AS_SCOPES are required');

function newKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), use: 'sig', alg: 'RS256' };
}

let keys = [newKey()];
let jwksFetches = 0;
const issued = []; // every access token handed out, so the tests' log audit can look for them
let provider;

function build(issuer) {
  return new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      scope: c.scope,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: { keys },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    scopes: scopes.split(' '),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resources[0],
        useGrantedResource: () => true,
        getResourceServerInfo(ctx, indicator) {
          if (!resources.includes(indicator)) throw new errors.InvalidTarget();
          return {
            scope: scopes,
            audience: indicator,
            accessTokenTTL: 300,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });
}

const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  if (path === '/__rotate' && req.method === 'POST') {
    keys = [newKey(), ...keys];
    provider = build(provider.issuer);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kid: keys[0].kid }));
    return;
  }
  if (path === '/__stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jwksFetches, kids: keys.map((k) => k.kid), issued }));
    return;
  }
  if (path === '/jwks') jwksFetches += 1;
  if (path === '/token') {
    const end = res.end.bind(res);
    res.end = (chunk, ...rest) => {
      try {
        const token = JSON.parse(chunk.toString()).access_token;
        if (token) issued.push(token);
      } catch {
        // not a token response (an error body): nothing to remember
      }
      return end(chunk, ...rest);
    };
  }
  provider.callback()(req, res);
});

server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  provider = build(issuer);
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
