#!/usr/bin/env node
// YUZU_BUILD_DIR=<build> node sdk_progress.mjs
//
// Progress of execute_instruction end to end, with the official SDK client
// and real virtual agents: a yuzu-server of this script's own, one
// `yuzu-agent --virtual 20` enrolled with a token from
// POST /api/v1/enrollment-tokens, an operator-tier MCP token.
//   (a) callTool(..., { onprogress }) (the SDK adds _meta.progressToken
//       itself): the POST is answered as text/event-stream; the
//       notifications/progress series is strictly increasing, counts agents
//       settled of 20 targeted and ends at 20/20; every frame arrives before
//       callTool resolves, and carries the result's execution_id in
//       _meta.execution_id; the result comes once the execution completed;
//   (b) the same call without onprogress is answered with plain JSON;
//   (c) the result's structuredContent against the tool's outputSchema (ajv);
//   (d) the same server and agents with a 2026-07-28 client
//       (@modelcontextprotocol/client, pinned to the stateless era): no
//       session anywhere, tools/list, execute_instruction with onprogress
//       answered on its own text/event-stream with the same series; then a
//       call whose stream the client closes after the first frame: the
//       execution it started still completes on all agents.
// Prints "ok - ..." / "not ok - ..." and "N passed, M failed".
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import Ajv from 'ajv';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import {
  RestSession, Runner, VirtualAgents, YuzuServer, assert, assertEqual, waitUntil,
} from './browser/harness.mjs';

const N = 20;  // virtual agents
const kOnlineWaitMs = 60000;
const kAfterResultMs = 500;  // how long to watch for a stray frame after the result

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const buildDir = process.env.YUZU_BUILD_DIR || join(root, 'build');
const binDir = join(buildDir, 'bin');
const server = new YuzuServer(binDir);
const runner = new Runner();

let agents = null;

// Whatever way this process ends, no agent or server outlives it.
process.on('exit', () => {
  if (agents?.running()) agents.child.kill('SIGKILL');
  if (server.child && server.child.exitCode === null) server.child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

// --- helpers ---------------------------------------------------------------------

let token = '';
let admin;  // the admin's RestSession
let client;
const fetchLog = [];  // {rpcMethod, tool, progressToken, status, contentType} per POST
const sdkErrors = [];  // what reached client.onerror (e.g. a frame for an unknown token)

// The SDK's fetch, recording what each POST asked for and how it was answered.
async function recordingFetch(url, init) {
  const res = await fetch(url, init);
  if ((init?.method ?? 'GET') === 'POST') {
    let message = null;
    try {
      message = JSON.parse(init.body);
    } catch {
      // not a JSON body: recorded without its method
    }
    fetchLog.push({
      rpcMethod: message?.method,
      rpcId: message?.id,
      tool: message?.params?.name,
      progressToken: message?.params?._meta?.progressToken,
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
    });
  }
  return res;
}

async function connectSdk() {
  client = new Client({ name: 'yuzu-e2e-sdk-progress', version: '1.0.0' });
  client.onerror = (err) => sdkErrors.push(String(err?.message ?? err));
  const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp/v1/`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: recordingFetch,
  });
  await client.connect(transport);
}

// structuredContent of a successful tools/call through the SDK.
async function callOk(name, args, options) {
  const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, options);
  assert(!result.isError, `${name}: isError: ${JSON.stringify(result.content).slice(0, 300)}`);
  assert(result.structuredContent && typeof result.structuredContent === 'object',
    `${name}: no structuredContent`);
  return result.structuredContent;
}

async function onlineAgents() {
  const sc = await callOk('list_agents', { online: true, limit: 1000 });
  return sc.agents.length;
}

// The data of each complete SSE event of `text`, parsed as JSON.
function sseData(text) {
  const out = [];
  for (const block of String(text).replace(/\r\n?/g, '\n').split('\n\n')) {
    const data = block.split('\n').filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, '')).join('\n');
    if (data) out.push(JSON.parse(data));
  }
  return out;
}

const isTerminal = (status) => ['succeeded', 'completed_with_errors', 'failed', 'cancelled'].includes(status);

// --- (a) callTool with onprogress ------------------------------------------------

const streamed = {
  frames: [],  // params of each notifications/progress, with `afterResult`
  result: null,
  resolved: false,
  resolvedAtMs: 0,
  errorsBefore: 0,
  statusAtResult: null,
};

runner.test(`(a) callTool execute_instruction os.info on ${N} agents with onprogress: answered as text/event-stream`, async () => {
  streamed.errorsBefore = sdkErrors.length;
  const logFrom = fetchLog.length;
  const result = await client.callTool(
    { name: 'execute_instruction', arguments: { plugin: 'os', action: 'info' } },
    CallToolResultSchema,
    { onprogress: (p) => streamed.frames.push({ ...p, afterResult: streamed.resolved }) },
  );
  streamed.resolvedAtMs = Date.now();
  streamed.resolved = true;
  streamed.result = result;
  // At once, before anything else: the execution as the result found it.
  streamed.statusAtResult = await callOk('get_execution_status',
    { execution_id: result.structuredContent?.execution_id ?? '', agents_limit: 0 });
  assert(!result.isError, `isError: ${JSON.stringify(result.content).slice(0, 300)}`);
  const post = fetchLog.slice(logFrom).find((r) => r.tool === 'execute_instruction');
  assert(post !== undefined, 'the SDK made no POST of execute_instruction');
  assert(post.progressToken !== undefined, 'the SDK sent no _meta.progressToken');
  assertEqual(post.status, 200, 'HTTP status');
  assert(post.contentType.startsWith('text/event-stream'),
    `Content-Type of the answer: ${JSON.stringify(post.contentType)}`);
  const sc = result.structuredContent;
  assertEqual(sc.agents_targeted, N, 'structuredContent.agents_targeted');
  assertEqual(sc.agents_reached, N, 'structuredContent.agents_reached');
  assert(/^[0-9a-f]{32}$/.test(sc.execution_id ?? ''), `structuredContent.execution_id ${sc.execution_id}`);
});

runner.test(`(a) the progress series is strictly increasing, total ${N} in every frame, and ends at ${N}/${N}`, async () => {
  const { frames } = streamed;
  assert(frames.length > 0, 'no notifications/progress reached onprogress');
  const series = frames.map((f) => `${f.progress}/${f.total}`).join(', ');
  for (let i = 0; i < frames.length; i += 1) {
    assertEqual(frames[i].total, N, `frame ${i} total (series ${series})`);
    assert(typeof frames[i].message === 'string' && frames[i].message.length > 0,
      `frame ${i} message ${JSON.stringify(frames[i].message)}`);
    if (i > 0) {
      assert(frames[i].progress > frames[i - 1].progress, `not strictly increasing: ${series}`);
    }
  }
  assertEqual(frames.at(-1).progress, N, `the last frame's progress (series ${series})`);
  console.log(`    # ${frames.length} progress frame(s): ${series}`);
});

runner.test('(a) every progress frame reached onprogress before callTool resolved, and none after', async () => {
  const late = streamed.frames.filter((f) => f.afterResult);
  assertEqual(late.length, 0, 'frames after the result');
  const count = streamed.frames.length;
  await sleep(kAfterResultMs);
  assertEqual(streamed.frames.length, count, `frames in the ${kAfterResultMs} ms after the result`);
  const stray = sdkErrors.slice(streamed.errorsBefore);
  assertEqual(stray.length, 0, `SDK errors since the call (${stray.join(' | ')})`);
});

runner.test('(a) every frame\'s _meta.execution_id is the result\'s structuredContent.execution_id', async () => {
  const id = streamed.result?.structuredContent?.execution_id;
  assert(typeof id === 'string', 'no result to compare with');
  streamed.frames.forEach((f, i) => {
    assertEqual(f._meta?.execution_id, id, `frame ${i} _meta.execution_id`);
  });
});

runner.test(`(a) the streamed result came once the execution completed: ${N} of ${N} responded`, async () => {
  const st = streamed.statusAtResult;
  assert(st !== null, 'no status was read');
  assert(isTerminal(st.status), `status right after the result: ${st.status}`);
  assertEqual(st.agents_targeted, N, 'agents_targeted');
  assertEqual(st.agents_responded, N, 'agents_responded');
  assertEqual(st.agents_outstanding ?? 0, 0, 'agents_outstanding');
  // The execution's `completed` event (replayed with its at_ms, Unix ms on
  // this machine's clock) came no later than callTool resolved.
  const id = streamed.result.structuredContent.execution_id;
  const { body } = await admin.request('GET', `/api/v1/events?execution_id=${id}`, undefined, 200);
  const completed = sseData(body).find((e) => e.type === 'completed');
  assert(completed !== undefined, `no completed event in ${String(body).slice(0, 300)}`);
  assert(completed.at_ms <= streamed.resolvedAtMs,
    `completed at ${completed.at_ms}, ${completed.at_ms - streamed.resolvedAtMs} ms after callTool resolved`);
});

// --- (b) the same call without onprogress ----------------------------------------

runner.test('(b) the same call without onprogress: no progressToken, a plain application/json answer', async () => {
  const errorsBefore = sdkErrors.length;
  const logFrom = fetchLog.length;
  const sc = await callOk('execute_instruction', { plugin: 'os', action: 'info' });
  const post = fetchLog.slice(logFrom).find((r) => r.tool === 'execute_instruction');
  assert(post !== undefined, 'the SDK made no POST of execute_instruction');
  assertEqual(post.progressToken, undefined, '_meta.progressToken sent');
  assertEqual(post.status, 200, 'HTTP status');
  assert(post.contentType.startsWith('application/json'),
    `Content-Type of the answer: ${JSON.stringify(post.contentType)}`);
  assert(/^[0-9a-f]{32}$/.test(sc.execution_id ?? ''), `structuredContent.execution_id ${sc.execution_id}`);
  assert(sc.execution_id !== streamed.result?.structuredContent?.execution_id, 'the same execution_id as (a)');
  assertEqual(sc.agents_targeted, N, 'structuredContent.agents_targeted');
  // It returns at once; the execution still completes (and sends nothing to us).
  const done = await waitUntil('the plain call\'s execution to complete', async () => {
    const st = await callOk('get_execution_status', { execution_id: sc.execution_id, agents_limit: 0 });
    return isTerminal(st.status) ? st : null;
  }, 30000);
  assertEqual(done.agents_responded, N, 'agents_responded once complete');
  const stray = sdkErrors.slice(errorsBefore);
  assertEqual(stray.length, 0, `SDK errors since the call (${stray.join(' | ')})`);
});

// --- (c) the output schema -------------------------------------------------------

runner.test('(c) the result\'s structuredContent matches the outputSchema tools/list advertises', async () => {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === 'execute_instruction');
  assert(tool?.outputSchema, 'execute_instruction advertises no outputSchema');
  const validate = new Ajv({ strict: false }).compile(tool.outputSchema);
  const ok = validate(streamed.result?.structuredContent);
  assert(ok, `schema errors: ${JSON.stringify(validate.errors)}`);
});

// --- (d) a 2026-07-28 client on the same server ---------------------------------

const modernLog = [];  // {rpcMethod, tool, sessionSent, sessionAnswered, status, contentType}
let modern;

async function modernFetch(url, init) {
  const res = await fetch(url, init);
  let message = null;
  try {
    message = JSON.parse(init?.body ?? 'null');
  } catch {
    // not a JSON body
  }
  modernLog.push({
    httpMethod: init?.method ?? 'GET',
    rpcMethod: message?.method,
    tool: message?.params?.name,
    sessionSent: new Headers(init?.headers).has('mcp-session-id'),
    sessionAnswered: res.headers.has('mcp-session-id'),
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
  });
  return res;
}

runner.test('(d) a 2026-07-28 client connects statelessly: server/discover, no initialize, no session', async () => {
  modern = new ModernClient({ name: 'yuzu-e2e-modern', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const transport = new ModernTransport(new URL(`${server.baseUrl}/mcp/v1/`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: modernFetch,
  });
  await modern.connect(transport);
  assertEqual(modern.getProtocolEra(), 'modern', 'era');
  assertEqual(modern.getNegotiatedProtocolVersion(), '2026-07-28', 'negotiated version');
  const methods = modernLog.map((r) => r.rpcMethod);
  assert(methods.includes('server/discover'), `no server/discover: ${methods.join(', ')}`);
  assert(!methods.includes('initialize'), `initialize was sent: ${methods.join(', ')}`);
});

runner.test('(d) the 2026 client lists the same tools as the 2025 client', async () => {
  const { tools } = await modern.listTools();
  const { tools: legacy } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assertEqual(JSON.stringify(names), JSON.stringify(legacy.map((t) => t.name).sort()), 'tool names');
  assert(names.includes('execute_instruction'), 'execute_instruction is not listed');
});

runner.test(`(d) execute_instruction with onprogress over 2026: its own text/event-stream, ${N}/${N} at the end`, async () => {
  const frames = [];
  const logFrom = modernLog.length;
  const result = await modern.callTool(
    { name: 'execute_instruction', arguments: { plugin: 'os', action: 'info' } },
    { onprogress: (p) => frames.push(p) },
  );
  assert(!result.isError, `isError: ${JSON.stringify(result.content).slice(0, 300)}`);
  const post = modernLog.slice(logFrom).find((r) => r.tool === 'execute_instruction');
  assert(post !== undefined, 'the client made no POST of execute_instruction');
  assertEqual(post.status, 200, 'HTTP status');
  assert(post.contentType.startsWith('text/event-stream'),
    `Content-Type of the answer: ${JSON.stringify(post.contentType)}`);
  const series = frames.map((f) => `${f.progress}/${f.total}`).join(', ');
  assert(frames.length > 0, 'no progress reached onprogress');
  for (let i = 1; i < frames.length; i += 1) {
    assert(frames[i].progress > frames[i - 1].progress, `not strictly increasing: ${series}`);
  }
  assertEqual(frames.at(-1).progress, N, `the last frame's progress (series ${series})`);
  assertEqual(frames.at(-1).total, N, `the last frame's total (series ${series})`);
  assertEqual(result.structuredContent?.agents_targeted, N, 'structuredContent.agents_targeted');
  console.log(`    # 2026: ${frames.length} progress frame(s): ${series}`);
});

runner.test('(d) closing a 2026 call\'s stream detaches it: the execution still completes', async () => {
  const abort = new AbortController();
  let executionId;
  const call = modern.callTool(
    { name: 'execute_instruction', arguments: { plugin: 'os', action: 'info' } },
    {
      signal: abort.signal,
      onprogress: (p) => {
        executionId ??= p._meta?.execution_id;
        abort.abort();
      },
    },
  );
  const outcome = await call.then(() => 'resolved', () => 'rejected');
  assertEqual(outcome, 'rejected', 'the aborted call');
  assert(/^[0-9a-f]{32}$/.test(executionId ?? ''), `execution_id from the first frame: ${executionId}`);
  const done = await waitUntil('the detached execution to complete', async () => {
    const st = await callOk('get_execution_status', { execution_id: executionId, agents_limit: 0 });
    return isTerminal(st.status) ? st : null;
  }, 30000);
  assertEqual(done.agents_responded, N, 'agents_responded once complete');
});

runner.test('(d) no 2026 request sent or got an Mcp-Session-Id, and none was a GET or DELETE', async () => {
  assert(modernLog.length > 0, 'no 2026 requests were recorded');
  for (const r of modernLog) {
    assertEqual(r.httpMethod, 'POST', `HTTP method of ${r.rpcMethod}`);
    assertEqual(r.sessionSent, false, `Mcp-Session-Id sent with ${r.rpcMethod}`);
    assertEqual(r.sessionAnswered, false, `Mcp-Session-Id answered to ${r.rpcMethod}`);
  }
});

// --- setup and run ---------------------------------------------------------------

async function setUp() {
  await server.start();
  assert(server.agentUrl, 'listen.json named no agent-plane URL');
  admin = new RestSession(server.baseUrl);
  await admin.login('admin', server.adminPassword);
  const expiresAt = Math.floor(Date.now() / 1000) + 24 * 3600;
  ({ body: { token } } = await admin.request('POST', '/api/v1/tokens',
    { name: 'e2e-progress', mcp_tier: 'operator', expires_at: expiresAt }, 201));
  const { body: enrollment } = await admin.request('POST', '/api/v1/enrollment-tokens', {}, 201);
  assert(typeof enrollment?.token === 'string' && enrollment.token.length > 0, 'no enrollment token');
  agents = new VirtualAgents(binDir, server, N, enrollment.token);
  agents.start();
  await connectSdk();
  await waitUntil(`${N} agents online in list_agents`, async () => {
    if (!agents.running()) throw new Error(`yuzu-agent exited:\n${agents.logTail()}`);
    return (await onlineAgents()) === N;
  }, kOnlineWaitMs);
}

async function tearDown() {
  await modern?.close().catch(() => {});
  await client?.close().catch(() => {});
  await agents?.stop();
  await server.stop();
}

let ok = false;
try {
  await setUp();
  ok = await runner.run(async () => {
    const posts = fetchLog.map((r) => `${r.rpcMethod}${r.tool ? `(${r.tool})` : ''} ${r.status} ${r.contentType}`);
    console.log(`    # SDK POSTs: ${posts.join(', ')}`);
    console.log(`    # SDK errors: ${sdkErrors.join(' | ') || '(none)'}`);
    console.log(`    # yuzu-server log (tail):\n${server.logTail(20).replace(/^/gm, '    # ')}`);
    console.log(`    # yuzu-agent log (tail):\n${agents.logTail(10).replace(/^/gm, '    # ')}`);
  });
} catch (err) {
  console.error(`sdk_progress: setup failed: ${err?.stack ?? err}`);
  console.error(server.logTail(40));
  if (agents) console.error(agents.logTail(20));
  await tearDown();
  process.exit(2);
}
await tearDown();
process.exit(ok ? 0 : 1);
