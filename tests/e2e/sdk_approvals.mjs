#!/usr/bin/env node
// YUZU_BUILD_DIR=<build> node sdk_approvals.mjs
//
// Ticket-then-recall end to end with the official MCP SDK client against a
// yuzu-server of its own: a supervised token asks to quarantine an agent,
// gets an approval ticket (-32006), asks again and gets the same ticket; a
// schema-invalid call is refused without minting; an administrator with a
// real TOTP proof approves over REST; the recall quarantines the agent; a
// replay and another principal's recall are both refused with one message.
// Prints "ok - ..." / "not ok - ..." and "N passed, M failed".
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { RestSession, Runner, TotpDevice, YuzuServer, assert, assertEqual } from './browser/harness.mjs';

const kApprovalRequired = -32006;
const kPermissionDenied = -32003;
const kInvalidParams = -32602;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const buildDir = process.env.YUZU_BUILD_DIR || join(root, 'build');
const server = new YuzuServer(join(buildDir, 'bin'));
const runner = new Runner();
const reviewer = { username: 'e2e-reviewer', password: 'reviewer-long-password-1' };

let admin;         // REST session of the bootstrap admin (the ticket's submitter)
let review;        // REST session of the reviewer, who approves
let reviewerTotp;  // the reviewer's authenticator
let submitter;     // SDK client on the admin's supervised MCP token
let stranger;      // SDK client on the reviewer's supervised MCP token
let agentId = '';
let approvalId = '';
let replayMessage = '';

async function connect(token) {
  const client = new Client({ name: 'yuzu-e2e-sdk-approvals', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp/v1/`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

// The JSON-RPC error of a call that must fail.
async function rpcError(promise) {
  try {
    const result = await promise;
    throw new Error(`expected a JSON-RPC error, got ${JSON.stringify(result).slice(0, 300)}`);
  } catch (err) {
    if (typeof err?.code !== 'number') throw err;
    return err;
  }
}

async function pendingCount() {
  const { body } = await admin.request('GET', '/api/v1/approvals?state=pending', undefined, 200);
  return body.approvals.length;
}

async function supervisedToken(session, name) {
  const expiresAt = Math.floor(Date.now() / 1000) + 24 * 3600;
  const { body } = await session.request('POST', '/api/v1/tokens',
    { name, mcp_tier: 'supervised', expires_at: expiresAt }, 201);
  return body.token;
}

const quarantineArgs = () => ({ agent_id: agentId, reason: 'e2e: suspected compromise' });

runner.test('the first call mints a ticket: -32006 with approval_id and status_url', async () => {
  const err = await rpcError(submitter.callTool({ name: 'quarantine_device', arguments: quarantineArgs() }));
  assertEqual(err.code, kApprovalRequired, 'error code');
  assert(/^[0-9a-f]{32}$/.test(err.data?.approval_id ?? ''), `approval_id ${err.data?.approval_id}`);
  assertEqual(err.data.status_url, `/api/v1/approvals/${err.data.approval_id}`, 'status_url');
  assertEqual(err.data.retry_after_ms, 30000, 'retry_after_ms');
  assert(typeof err.data.correlation_id === 'string', 'correlation_id');
  approvalId = err.data.approval_id;
});

runner.test('the same call again returns the same approval_id', async () => {
  const err = await rpcError(submitter.callTool({ name: 'quarantine_device', arguments: quarantineArgs() }));
  assertEqual(err.code, kApprovalRequired, 'error code');
  assertEqual(err.data.approval_id, approvalId, 'approval_id');
});

runner.test('a schema-invalid call is -32602 and mints nothing', async () => {
  const before = await pendingCount();
  const err = await rpcError(submitter.callTool({
    name: 'quarantine_device', arguments: { ...quarantineArgs(), agent_id: 42 },
  }));
  assertEqual(err.code, kInvalidParams, 'error code');
  assertEqual(await pendingCount(), before, 'pending approvals after the invalid call');
});

runner.test('a recall while pending is still -32006 and does not quarantine', async () => {
  const err = await rpcError(submitter.callTool({
    name: 'quarantine_device', arguments: { ...quarantineArgs(), approval_id: approvalId },
  }));
  assertEqual(err.code, kApprovalRequired, 'error code');
  const { body } = await admin.request('GET', `/api/v1/agents/${agentId}`, undefined, 200);
  assertEqual(body.quarantined, false, 'agent quarantined while pending');
});

runner.test('the reviewer approves over REST with a fresh TOTP proof', async () => {
  await review.request('POST', '/api/v1/mfa/verify', { code: await reviewerTotp.nextCode() }, 200);
  await review.request('POST', `/api/v1/approvals/${approvalId}/approve`, { comment: 'e2e' }, 200);
  const { body } = await admin.request('GET', `/api/v1/approvals/${approvalId}`, undefined, 200);
  assertEqual(body.state ?? body.status, 'approved', 'ticket state');
});

runner.test('the recall succeeds and the agent is quarantined', async () => {
  const result = await submitter.callTool({
    name: 'quarantine_device', arguments: { ...quarantineArgs(), approval_id: approvalId },
  });
  assert(!result.isError, `tool result ${JSON.stringify(result).slice(0, 300)}`);
  const { body } = await admin.request('GET', `/api/v1/agents/${agentId}`, undefined, 200);
  assertEqual(body.quarantined, true, 'agent quarantined');
});

runner.test('a replay of the consumed ticket is -32003', async () => {
  const err = await rpcError(submitter.callTool({
    name: 'quarantine_device', arguments: { ...quarantineArgs(), approval_id: approvalId },
  }));
  assertEqual(err.code, kPermissionDenied, 'error code');
  replayMessage = err.message;
});

runner.test('another principal recalling gets -32003 with the same message as the replay', async () => {
  const err = await rpcError(stranger.callTool({
    name: 'quarantine_device', arguments: { ...quarantineArgs(), approval_id: approvalId },
  }));
  assertEqual(err.code, kPermissionDenied, 'error code');
  assertEqual(err.message, replayMessage, 'message');
});

async function setUp() {
  await server.start();
  admin = new RestSession(server.baseUrl);
  await admin.login('admin', server.adminPassword);

  // An agent to quarantine, enrolled over the agent plane.
  const listen = JSON.parse(readFileSync(join(server.dataDir, 'listen.json'), 'utf8'));
  const { body: enrollment } = await admin.request('POST', '/api/v1/enrollment-tokens', {}, 201);
  const enrolled = await fetch(`${listen.agent}/agent/v1/enroll`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      enrollment_token: enrollment.token, hostname: 'e2e-host', os: 'linux', arch: 'x86_64',
      agent_version: 'e2e',
    }),
  });
  if (enrolled.status !== 201) throw new Error(`enroll: HTTP ${enrolled.status}`);
  agentId = (await enrolled.json()).agent_id;

  // The reviewer: a second person (reviewer ≠ submitter) with TOTP enrolled.
  await admin.request('POST', '/api/v1/users',
    { username: reviewer.username, password: reviewer.password, roles: ['Administrator'] }, 201);
  review = new RestSession(server.baseUrl);
  await review.login(reviewer.username, reviewer.password);
  const { body: factor } = await review.request('POST', '/api/v1/mfa/totp/enroll', {}, 200);
  reviewerTotp = new TotpDevice(factor.secret);
  await review.request('POST', '/api/v1/mfa/totp/activate', { code: await reviewerTotp.nextCode() }, 204);

  submitter = await connect(await supervisedToken(admin, 'e2e-submitter'));
  stranger = await connect(await supervisedToken(review, 'e2e-stranger'));
}

let ok = false;
try {
  await setUp();
  ok = await runner.run(async () => {
    console.log(`    # yuzu-server log (tail):\n${server.logTail(30).replace(/^/gm, '    # ')}`);
  });
} catch (err) {
  console.error(`sdk_approvals: setup failed: ${err?.stack ?? err}`);
  console.error(server.logTail(40));
  await server.stop();
  process.exit(2);
}
await submitter?.close();
await stranger?.close();
await server.stop();
process.exit(ok ? 0 : 1);
