#!/usr/bin/env node
// A browser page on another origin calling /mcp/v1/ (CORS), in Debian's
// chromium (headless) driven by playwright-core. Two tiny pages are served
// by node on ephemeral 127.0.0.1 ports; yuzu-server is started with the
// first one's origin as --mcp-allowed-origin. From that page a fetch() of
// an MCP initialize with a bearer token must come back readable (the
// browser's preflight answered, Access-Control-Allow-Origin on the answer),
// 401s included; from the second page the same fetch must fail.
//
//   YUZU_BUILD_DIR=build node tests/e2e/browser/mcp_cors.spec.mjs
//
// Environment: YUZU_BUILD_DIR (default <repo>/build; the server is
// $YUZU_BUILD_DIR/bin/yuzu-server), CHROMIUM (default /usr/bin/chromium).
// Prints one "ok - ..." / "not ok - ..." line per test, then
// "N passed, M failed"; exits 1 on any failure, 2 when it cannot start.
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { Runner, RestSession, YuzuServer, assert, assertEqual } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const binDir = join(process.env.YUZU_BUILD_DIR || join(root, 'build'), 'bin');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

if (!existsSync(chromiumPath)) {
  console.error(`mcp_cors.spec: ${chromiumPath} is missing; apt-get install -y chromium`);
  process.exit(2);
}

const kPage = '<!doctype html><meta charset="utf-8"><title>an MCP client page</title>' +
  '<p>A page on its own origin; the test calls fetch() from here.</p>';

const kInitialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'browser-cors-e2e', version: '1' },
  },
};

// Serves kPage on 127.0.0.1:<ephemeral>; resolves to {origin, close()}.
function startPageServer() {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/' || req.url === '/index.html')) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(kPage);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolvePromise({
        origin: `http://127.0.0.1:${port}`,
        close: () => new Promise((done) => {
          server.closeAllConnections?.();
          server.close(() => done());
        }),
      });
    });
  });
}

// In the page: the fetch the brief describes; answers what a page script
// can see of the response, or the error fetch() rejected with.
async function fetchFromPage(page, url, headers, body) {
  return page.evaluate(async ({ url: target, headers: h, body: b }) => {
    try {
      const res = await fetch(target, { method: 'POST', headers: h, body: b });
      return {
        status: res.status,
        contentType: res.headers.get('content-type'),
        wwwAuthenticate: res.headers.get('www-authenticate'),
        text: await res.text(),
      };
    } catch (err) {
      return { error: `${err.name}: ${err.message}` };
    }
  }, { url, headers, body });
}

function mcpHeaders(token) {
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

let allowedPage;   // the origin given to --mcp-allowed-origin
let foreignPage;   // an origin that is not
let server;
let mcpToken;
let browser;

async function openPage(origin) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  assertEqual(await page.evaluate(() => window.location.origin), origin, 'the page origin');
  return { context, page };
}

const runner = new Runner();

runner.test('a page on an --mcp-allowed-origin reads the initialize result', async () => {
  const { context, page } = await openPage(allowedPage.origin);
  try {
    const res = await fetchFromPage(page, `${server.baseUrl}/mcp/v1/`, mcpHeaders(mcpToken),
      JSON.stringify(kInitialize));
    assert(!res.error, `fetch() from the allowed origin failed: ${res.error}\n${server.logTail(10)}`);
    assertEqual(res.status, 200, 'HTTP status');
    assert(res.contentType.startsWith('application/json'), `content type ${res.contentType}`);
    const reply = JSON.parse(res.text);
    assertEqual(reply.jsonrpc, '2.0', 'jsonrpc');
    assertEqual(reply.id, 1, 'id');
    assertEqual(reply.result?.protocolVersion, '2025-06-18', 'result.protocolVersion');
    assertEqual(reply.result?.serverInfo?.name, 'yuzu-server', 'result.serverInfo.name');
  } finally {
    await context.close();
  }
});

runner.test('the allowed page can read a 401 and its WWW-Authenticate', async () => {
  const { context, page } = await openPage(allowedPage.origin);
  try {
    const none = await fetchFromPage(page, `${server.baseUrl}/mcp/v1/`, mcpHeaders(''),
      JSON.stringify(kInitialize));
    assert(!none.error, `fetch() without a token failed: ${none.error}`);
    assertEqual(none.status, 401, 'HTTP status without a token');
    assertEqual(none.wwwAuthenticate, 'Bearer realm="yuzu"', 'WWW-Authenticate without a token');

    const unknown = await fetchFromPage(page, `${server.baseUrl}/mcp/v1/`,
      mcpHeaders(`yuzu_${'Q'.repeat(32)}`), JSON.stringify(kInitialize));
    assert(!unknown.error, `fetch() with an unknown token failed: ${unknown.error}`);
    assertEqual(unknown.status, 401, 'HTTP status with an unknown token');
    assertEqual(unknown.wwwAuthenticate,
      'Bearer realm="yuzu", error="invalid_token", error_description="the token is unknown"',
      'WWW-Authenticate with an unknown token');
  } finally {
    await context.close();
  }
});

runner.test('the same fetch from an origin not on the list fails', async () => {
  const { context, page } = await openPage(foreignPage.origin);
  try {
    const res = await fetchFromPage(page, `${server.baseUrl}/mcp/v1/`, mcpHeaders(mcpToken),
      JSON.stringify(kInitialize));
    assert(res.error, `fetch() from a foreign origin should fail, got HTTP ${res.status}: ${res.text}`);
    assert(res.error.startsWith('TypeError'), `a network error, got ${res.error}`);
  } finally {
    await context.close();
  }
  // What the browser was told: the preflight is refused without Allow-* headers.
  const preflight = await fetch(`${server.baseUrl}/mcp/v1/`, {
    method: 'OPTIONS',
    headers: {
      Origin: foreignPage.origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization,content-type',
    },
  });
  assertEqual(preflight.status, 403, 'preflight status for the foreign origin');
  assertEqual(preflight.headers.get('access-control-allow-origin'), null,
    'Access-Control-Allow-Origin for the foreign origin');
});

async function setUp() {
  allowedPage = await startPageServer();
  foreignPage = await startPageServer();
  server = new YuzuServer(binDir, { args: ['--mcp-allowed-origin', allowedPage.origin] });
  await server.start();
  const admin = new RestSession(server.baseUrl);
  await admin.login('admin', server.adminPassword);
  const expiresAt = Math.floor(Date.now() / 1000) + 3600;
  const { body } = await admin.request('POST', '/api/v1/tokens',
    { name: 'browser-cors-e2e', mcp_tier: 'readonly', expires_at: expiresAt }, 201);
  mcpToken = body.token;
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
}

async function tearDown() {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (allowedPage) await allowedPage.close();
  if (foreignPage) await foreignPage.close();
}

let ok = false;
try {
  await setUp();
  console.log(`# yuzu-server at ${server.baseUrl} allowing ${allowedPage.origin}; ` +
    `foreign page at ${foreignPage.origin}; chromium ${browser.version()}`);
  ok = await runner.run(async () => {
    console.log(`    # yuzu-server log (tail):\n${server.logTail(20).replace(/^/gm, '    # ')}`);
  });
} catch (err) {
  console.error(`mcp_cors.spec: setup failed: ${err?.stack ?? err}`);
  if (server) console.error(server.logTail(40));
  await tearDown();
  process.exit(2);
}
await tearDown();
process.exit(ok ? 0 : 1);
