#!/usr/bin/env node
// YUZU_BUILD_DIR=<build> node sdk_stream.mjs
//
// The MCP session's GET stream end to end, with the official SDK client
// through a TCP proxy of this script's own that can cut the SDK's
// connections: the SDK opens the GET stream by itself after initialize;
// failing tools/call calls each publish one notifications/message frame;
// the proxy cuts the GET, more calls go out over POST, and the SDK resumes
// with Last-Event-ID and gets every frame exactly once; DELETE ends the
// session (the stream says session_terminated, the id then answers 404 /
// -32007). A second yuzu-server with --mcp-replay-ring-frames 4 checks,
// with raw fetch, that a resume from before the ring is a stream-closed
// replay_gap and ends the session.
// Prints "ok - ..." / "not ok - ..." and "N passed, M failed".
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import net from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { RestSession, Runner, YuzuServer, assert, assertEqual } from './browser/harness.mjs';

const kInvalidParams = -32602;
const kSessionUnknown = -32007;
const kProtocolVersion = '2025-06-18';
const K = 5;  // frames before the cut
const M = 5;  // frames made while the GET is cut
const kWaitMs = 10000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const buildDir = process.env.YUZU_BUILD_DIR || join(root, 'build');
const server = new YuzuServer(join(buildDir, 'bin'));
const smallRing = new YuzuServer(join(buildDir, 'bin'), { args: ['--mcp-replay-ring-frames', '4'] });
const runner = new Runner();

// --- helpers ---------------------------------------------------------------------

// Polls `probe` every 20 ms until it returns a truthy value; throws after
// `timeoutMs` naming `what`.
async function waitUntil(what, probe, timeoutMs = kWaitMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

// SSE events of `text` (complete ones only): {id, event, data, retry}.
function parseSse(text) {
  const events = [];
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n');
  blocks.pop();  // not terminated yet (or empty)
  for (const block of blocks) {
    const event = { id: undefined, event: undefined, data: undefined, retry: undefined };
    let any = false;
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      any = true;
      if (field === 'data') event.data = event.data === undefined ? value : `${event.data}\n${value}`;
      else if (field === 'id' || field === 'event' || field === 'retry') event[field] = value;
    }
    if (any) events.push(event);
  }
  return events;
}

// The HTTP body of a chunked response as seen on the wire, without the
// chunk-size lines: good enough to find SSE fields in, never to parse
// exactly (a chunk boundary is an SSE frame boundary here).
function sseFieldsOf(wire) {
  const ids = [...wire.matchAll(/(?:^|\n)id: ?(\d+)\r?\n/g)].map((m) => Number(m[1]));
  const close = wire.match(/event: ?stream-closed\r?\ndata: ?([^\r\n]*)/);
  let closeData = null;
  if (close) {
    try {
      closeData = JSON.parse(close[1]);
    } catch {
      closeData = { unparsed: close[1] };
    }
  }
  return { ids, primed: /(?:^|\n)retry: ?\d+\r?\n/.test(wire), closeData };
}

// --- the proxy -------------------------------------------------------------------

// A TCP proxy in front of the server that reads the request heads going up
// (so it knows which connection holds a GET stream, and with which
// headers) and what comes down on a GET's connection, and can cut one.
class CuttingProxy {
  constructor(targetUrl) {
    this.target = new URL(targetUrl);
    this.gets = [];  // every GET /mcp/v1/ seen, in order
    this.requests = [];  // {method, path} of every request head, in order
    this.sockets = new Set();
    this.listener = net.createServer((client) => this.accept(client));
  }

  async start() {
    await new Promise((ok, fail) => {
      this.listener.once('error', fail);
      this.listener.listen(0, '127.0.0.1', ok);
    });
    this.url = `http://127.0.0.1:${this.listener.address().port}`;
  }

  accept(client) {
    const upstream = net.connect(Number(this.target.port), this.target.hostname);
    const conn = { client, upstream, up: '', scan: 0, get: null, cut: false };
    this.sockets.add(client);
    this.sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
      if (conn.get) conn.get.ended = true;
    };
    client.on('data', (chunk) => {
      if (conn.cut) return;
      conn.up += chunk.toString('latin1');
      this.readHeads(conn);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (conn.cut) return;
      if (conn.get) conn.get.down += chunk.toString('latin1');
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
  }

  readHeads(conn) {
    const head = /(GET|POST|DELETE|OPTIONS|PUT|PATCH|HEAD) (\S+) HTTP\/1\.[01]\r\n((?:[^\r\n]+\r\n)*)\r\n/g;
    head.lastIndex = conn.scan;
    for (let m = head.exec(conn.up); m; m = head.exec(conn.up)) {
      conn.scan = head.lastIndex;
      const headers = {};
      for (const line of m[3].split('\r\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      this.requests.push({ method: m[1], path: m[2] });
      if (m[1] === 'GET' && m[2].startsWith('/mcp/v1')) {
        conn.get = { conn, headers, down: '', ended: false, cutHere: false };
        this.gets.push(conn.get);
      }
    }
  }

  // Destroys both sockets of `get`'s connection; nothing more is forwarded.
  cut(get) {
    get.conn.cut = true;
    get.cutHere = true;
    get.conn.client.destroy();
    get.conn.upstream.destroy();
  }

  async stop() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((ok) => this.listener.close(ok));
  }
}

// --- raw MCP over fetch ----------------------------------------------------------

function mcpHeaders(token, sessionId, extra = {}) {
  const headers = {
    Authorization: `Bearer ${token}`,
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': kProtocolVersion,
    ...extra,
  };
  if (sessionId) headers['Mcp-Session-Id'] = sessionId;
  return headers;
}

// One JSON-RPC message by POST; resolves to {status, headers, body}.
async function rawPost(baseUrl, token, sessionId, message) {
  const res = await fetch(`${baseUrl}/mcp/v1/`, {
    method: 'POST',
    headers: mcpHeaders(token, sessionId, { 'Content-Type': 'application/json' }),
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  const text = await res.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

async function rawSession(baseUrl, token) {
  const init = await rawPost(baseUrl, token, null, {
    id: 1, method: 'initialize',
    params: {
      protocolVersion: kProtocolVersion, capabilities: {},
      clientInfo: { name: 'yuzu-e2e-sdk-stream-raw', version: '1.0.0' },
    },
  });
  assertEqual(init.status, 200, 'initialize status');
  const sessionId = init.headers.get('mcp-session-id');
  assert(/^[0-9a-f]{32}$/.test(sessionId ?? ''), `Mcp-Session-Id ${sessionId}`);
  const initialized = await rawPost(baseUrl, token, sessionId, { method: 'notifications/initialized' });
  assertEqual(initialized.status, 202, 'notifications/initialized status');
  return sessionId;
}

// A failing tools/call on the session: one warning frame.
async function rawFrame(baseUrl, token, sessionId, i) {
  const res = await rawPost(baseUrl, token, sessionId, {
    id: 100 + i, method: 'tools/call', params: { name: `no_such_tool_raw_${i}`, arguments: {} },
  });
  assertEqual(res.status, 200, `tools/call ${i} status`);
  assertEqual(res.body?.error?.code, kInvalidParams, `tools/call ${i} error code`);
}

// Opens a GET stream; `read(pred)` reads until pred(events, text) holds or
// the body ends (resolves to the events), or throws after kWaitMs.
async function rawGet(baseUrl, token, sessionId, lastEventId) {
  const abort = new AbortController();
  const extra = { Accept: 'text/event-stream' };
  if (lastEventId !== undefined) extra['Last-Event-ID'] = String(lastEventId);
  const res = await fetch(`${baseUrl}/mcp/v1/`, {
    method: 'GET', headers: mcpHeaders(token, sessionId, extra), signal: abort.signal,
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const stream = { status: res.status, text: '', ended: false, abort: () => abort.abort() };
  stream.read = async (pred) => {
    const deadline = Date.now() + kWaitMs;
    for (;;) {
      const events = parseSse(stream.text);
      if (stream.ended || pred(events, stream.text)) return events;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`GET stream: timed out; so far:\n${stream.text}`);
      let timer;
      const chunk = await Promise.race([
        reader.read(),
        new Promise((ok) => { timer = setTimeout(() => ok(null), left); }),
      ]);
      clearTimeout(timer);
      if (chunk === null) continue;
      if (chunk.done) stream.ended = true;
      else stream.text += decoder.decode(chunk.value, { stream: true });
    }
  };
  return stream;
}

// --- the SDK client --------------------------------------------------------------

let tokenMain = '';
let tokenSmall = '';
let proxy;
let client;
let transport;
const fetchLog = [];  // {method, status} of every request the SDK made
const sdkErrors = [];  // what the transport reported to client.onerror
const notes = new Map();  // correlation_id -> notifications/message frames with it
const expected = [];  // correlation_ids of the calls made, in order
let lastIdBeforeCut = 0;
let resumeGet = null;
let deletedSessionId = '';

async function recordingFetch(url, init) {
  const res = await fetch(url, init);
  fetchLog.push({ method: init?.method ?? 'GET', status: res.status });
  return res;
}

async function connectSdk() {
  client = new Client({ name: 'yuzu-e2e-sdk-stream', version: '1.0.0' });
  client.onerror = (err) => sdkErrors.push(String(err?.message ?? err));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    const cid = n.params?.data?.correlation_id ?? '(none)';
    if (!notes.has(cid)) notes.set(cid, []);
    notes.get(cid).push(n.params);
  });
  transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp/v1/`), {
    requestInit: { headers: { Authorization: `Bearer ${tokenMain}` } },
    fetch: recordingFetch,
  });
  await client.connect(transport);
}

// A tools/call of an unknown tool through the SDK: a JSON-RPC error
// (-32602), which the SDK throws as an McpError with the error's data;
// records its correlation_id.
async function failingCall(name) {
  let result;
  try {
    result = await client.callTool({ name, arguments: {} });
  } catch (err) {
    if (typeof err?.code !== 'number') throw err;
    assertEqual(err.code, kInvalidParams, `${name}: error code`);
    assert(typeof err.data?.correlation_id === 'string', `${name}: error.data.correlation_id`);
    expected.push(err.data.correlation_id);
    return;
  }
  throw new Error(`${name}: expected a JSON-RPC error, got ${JSON.stringify(result).slice(0, 300)}`);
}

const received = (cids) => cids.every((cid) => notes.has(cid));
const liveGet = () => proxy.gets.at(-1);

// --- the SDK client through the proxy --------------------------------------------

runner.test('the SDK client connects through the proxy and holds an Mcp-Session-Id', async () => {
  assert(/^[0-9a-f]{32}$/.test(transport.sessionId ?? ''), `transport.sessionId ${transport.sessionId}`);
  const init = proxy.requests.find((r) => r.method === 'POST');
  assert(init !== undefined, 'the proxy saw no POST');
});

runner.test('the SDK opens the GET stream by itself; the server primes it with an id and retry: 1000', async () => {
  const get = await waitUntil('the SDK\'s GET /mcp/v1/', () => proxy.gets[0]);
  assertEqual(get.headers['mcp-session-id'], transport.sessionId, 'the GET\'s Mcp-Session-Id');
  assert(/text\/event-stream/.test(get.headers.accept ?? ''), `the GET's Accept ${get.headers.accept}`);
  assertEqual(get.headers['last-event-id'], undefined, 'Last-Event-ID of the first GET');
  await waitUntil('the priming event', () => sseFieldsOf(get.down).primed);
  assert(/(?:^|\n)retry: ?1000\r?\n/.test(get.down), `no retry: 1000 in ${JSON.stringify(get.down.slice(0, 300))}`);
  assertEqual(sseFieldsOf(get.down).ids[0], 0, 'the priming event\'s id (nothing published yet)');
});

runner.test(`${K} failing tools/call give ${K} notifications/message frames (warning, with their correlation_id)`, async () => {
  for (let i = 0; i < K; i += 1) await failingCall(`no_such_tool_${i}`);
  await waitUntil(`${K} notifications`, () => received(expected));
  for (let i = 0; i < K; i += 1) {
    const [frame] = notes.get(expected[i]);
    assertEqual(frame.level, 'warning', `frame ${i} level`);
    assertEqual(frame.data?.tool, `no_such_tool_${i}`, `frame ${i} data.tool`);
  }
  const { ids } = sseFieldsOf(liveGet().down);
  assertEqual(ids.length, K + 1, `event ids on the GET so far (${ids.join(',')})`);
});

runner.test(`the proxy cuts the GET; ${M} more failing calls are answered over POST meanwhile`, async () => {
  const get = liveGet();
  lastIdBeforeCut = Math.max(...sseFieldsOf(get.down).ids);
  assertEqual(lastIdBeforeCut, K, 'the last event id before the cut');
  proxy.cut(get);
  for (let i = K; i < K + M; i += 1) await failingCall(`no_such_tool_${i}`);
  assertEqual(expected.length, K + M, 'calls answered');
});

runner.test('the SDK reconnects the GET by itself, with Last-Event-ID of the last frame it had', async () => {
  resumeGet = await waitUntil('a second GET /mcp/v1/', () => proxy.gets.find((g) => !g.cutHere && g !== proxy.gets[0]));
  assertEqual(resumeGet.headers['last-event-id'], String(lastIdBeforeCut), 'Last-Event-ID');
  assertEqual(resumeGet.headers['mcp-session-id'], transport.sessionId, 'Mcp-Session-Id of the reconnect');
});

runner.test(`every one of the ${K + M} frames arrived exactly once, in order, with no event id twice`, async () => {
  await waitUntil(`the ${M} frames made during the cut`, () => received(expected));
  // A sentinel frame after them: anything replayed twice would come before it.
  await failingCall('no_such_tool_sentinel');
  const sentinel = expected.at(-1);
  await waitUntil('the sentinel frame', () => notes.has(sentinel));
  const counts = expected.map((cid) => notes.get(cid)?.length ?? 0);
  assert(counts.every((n) => n === 1), `frames per call: ${counts.join(',')}`);
  const strays = [...notes.keys()].filter((cid) => !expected.includes(cid));
  assertEqual(strays.length, 0, `frames of no call of ours (${strays.join(',')})`);
  const order = [...notes.keys()];
  assertEqual(JSON.stringify(order), JSON.stringify(expected), 'arrival order');
  // Event ids over both connections: 1..K before the cut, K+1.. after it.
  const before = sseFieldsOf(proxy.gets[0].down).ids.slice(1);
  const after = sseFieldsOf(resumeGet.down).ids;
  assertEqual(after[0], lastIdBeforeCut, 'the resumed stream\'s priming id');
  const all = [...before, ...after.slice(1)];
  const want = Array.from({ length: K + M + 1 }, (_, i) => i + 1);
  assertEqual(all.join(','), want.join(','), 'event ids across the cut');
});

runner.test('terminateSession (DELETE) answers 200; the open stream ends with stream-closed session_terminated', async () => {
  const sessionId = transport.sessionId;
  await transport.terminateSession();
  const del = fetchLog.filter((r) => r.method === 'DELETE');
  assertEqual(del.length, 1, 'DELETE requests');
  assertEqual(del[0].status, 200, 'DELETE status');
  const closed = await waitUntil('stream-closed on the resumed GET', () => sseFieldsOf(resumeGet.down).closeData);
  assertEqual(closed.reason, 'session_terminated', 'stream-closed reason');
  deletedSessionId = sessionId;
});

runner.test('after DELETE the old session id answers 404 with -32007', async () => {
  const res = await rawPost(server.baseUrl, tokenMain, deletedSessionId, { id: 7, method: 'ping' });
  assertEqual(res.status, 404, 'HTTP status');
  assertEqual(res.body?.error?.code, kSessionUnknown, 'error.code');
});

// --- a ring of 4 frames: a resume from before it is a replay_gap -----------------

let gapSession = '';

runner.test('--mcp-replay-ring-frames 4: a resume from before the ring is one stream-closed replay_gap frame', async () => {
  const base = smallRing.baseUrl;
  gapSession = await rawSession(base, tokenSmall);
  const first = await rawGet(base, tokenSmall, gapSession);
  assertEqual(first.status, 200, 'first GET status');
  await first.read((events) => events.some((e) => e.retry !== undefined));
  await rawFrame(base, tokenSmall, gapSession, 0);
  const events = await first.read((evs) => evs.some((e) => e.data));
  const frame = events.find((e) => e.data);
  const firstId = Number(frame.id);
  assert(Number.isInteger(firstId) && firstId > 0, `the first frame's id ${frame.id}`);
  first.abort();
  for (let i = 1; i <= 10; i += 1) await rawFrame(base, tokenSmall, gapSession, i);

  const resumed = await rawGet(base, tokenSmall, gapSession, firstId);
  assertEqual(resumed.status, 200, 'resume GET status');
  const got = await resumed.read(() => false);  // the server ends this body
  const closes = got.filter((e) => e.event === 'stream-closed');
  assertEqual(closes.length, 1, `stream-closed events in ${JSON.stringify(resumed.text)}`);
  assertEqual(JSON.parse(closes[0].data).reason, 'replay_gap', 'stream-closed reason');
  assertEqual(got.length, 1,
    `events in the gap answer (no priming, no partial replay): ${JSON.stringify(resumed.text)}`);
});

runner.test('after replay_gap the session is gone: a POST with it is 404 with -32007', async () => {
  const res = await rawPost(smallRing.baseUrl, tokenSmall, gapSession, { id: 8, method: 'ping' });
  assertEqual(res.status, 404, 'HTTP status');
  assertEqual(res.body?.error?.code, kSessionUnknown, 'error.code');
});

// --- setup and run ---------------------------------------------------------------

async function operatorToken(srv, name) {
  const admin = new RestSession(srv.baseUrl);
  await admin.login('admin', srv.adminPassword);
  const expiresAt = Math.floor(Date.now() / 1000) + 24 * 3600;
  const { body } = await admin.request('POST', '/api/v1/tokens',
    { name, mcp_tier: 'operator', expires_at: expiresAt }, 201);
  return body.token;
}

async function setUp() {
  await Promise.all([server.start(), smallRing.start()]);
  tokenMain = await operatorToken(server, 'e2e-stream');
  tokenSmall = await operatorToken(smallRing, 'e2e-stream-ring');
  proxy = new CuttingProxy(server.baseUrl);
  await proxy.start();
  await connectSdk();
}

let ok = false;
try {
  await setUp();
  ok = await runner.run(async () => {
    console.log(`    # SDK requests: ${fetchLog.map((r) => `${r.method} ${r.status}`).join(', ')}`);
    console.log(`    # SDK errors: ${sdkErrors.join(' | ') || '(none)'}`);
    console.log(`    # yuzu-server log (tail):\n${server.logTail(20).replace(/^/gm, '    # ')}`);
    console.log('    # yuzu-server --mcp-replay-ring-frames 4 log (tail):');
    console.log(smallRing.logTail(20).replace(/^/gm, '    # '));
  });
} catch (err) {
  console.error(`sdk_stream: setup failed: ${err?.stack ?? err}`);
  console.error(server.logTail(40));
  await client?.close().catch(() => {});
  await proxy?.stop();
  await Promise.all([server.stop(), smallRing.stop()]);
  process.exit(2);
}
await client?.close().catch(() => {});
await proxy?.stop();
await Promise.all([server.stop(), smallRing.stop()]);
process.exit(ok ? 0 : 1);
