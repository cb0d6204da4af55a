#!/usr/bin/env node
// node sdk_tiers.mjs MCP_URL READONLY_TOKEN OPERATOR_TOKEN SUPERVISED_TOKEN
//
// End-to-end check of yuzu-server's MCP endpoint with the official SDK client
// (Streamable HTTP transport, bearer header), once per MCP tier: connect,
// list tools/resources/prompts, call read tools, and check the denial codes
// and error.data fields. Prints one line per check ("ok - ..." or
// "not ok - ..."), then "N passed, M failed"; exits 1 on any failure.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, readonlyToken, operatorToken, supervisedToken] = process.argv.slice(2);
if (!url || !readonlyToken || !operatorToken || !supervisedToken) {
  console.error('usage: sdk_tiers.mjs MCP_URL READONLY_TOKEN OPERATOR_TOKEN SUPERVISED_TOKEN');
  process.exit(2);
}

const kTierDenied = -32004;
const kInvalidParams = -32602;
const kCorrelationId = /^req-[0-9a-f]+-[0-9a-f]+$/;
let passed = 0;
let failed = 0;

function check(name, condition, detail = '') {
  if (condition) {
    passed += 1;
    console.log(`ok - ${name}`);
  } else {
    failed += 1;
    console.log(`not ok - ${name}${detail ? `: ${detail}` : ''}`);
  }
}

async function connect(token) {
  const client = new Client({ name: 'yuzu-e2e-sdk-tiers', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

// Runs `call`, expecting a JSON-RPC error; returns it (or null on success).
async function expectRpcError(call) {
  try {
    await call();
    return null;
  } catch (err) {
    return err;
  }
}

function checkEnvelope(label, err) {
  const data = err?.data ?? {};
  check(`${label}: error.data.correlation_id looks like req-<hex>-<hex>`,
    typeof data.correlation_id === 'string' && kCorrelationId.test(data.correlation_id),
    JSON.stringify(data.correlation_id));
  check(`${label}: error.data.retry_after_ms is null`,
    'retry_after_ms' in data && data.retry_after_ms === null, JSON.stringify(data.retry_after_ms));
  check(`${label}: error.data.remediation is a non-empty string`,
    typeof data.remediation === 'string' && data.remediation.length > 0);
}

async function checkTier(tier, token) {
  let client;
  try {
    client = await connect(token);
    check(`${tier}: connects (initialize)`, true);
  } catch (err) {
    check(`${tier}: connects (initialize)`, false, String(err));
    return;
  }
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    check(`${tier}: tools/list has query_audit_log and check_permission`,
      names.includes('query_audit_log') && names.includes('check_permission'), names.join(','));
    const { resources } = await client.listResources();
    check(`${tier}: resources/list is non-empty`, resources.length > 0);
    const { prompts } = await client.listPrompts();
    check(`${tier}: prompts/list is non-empty`, prompts.length > 0);

    const audit = await client.callTool({ name: 'query_audit_log', arguments: { limit: 5 } });
    check(`${tier}: query_audit_log succeeds with structuredContent`,
      audit.isError !== true && audit.structuredContent !== undefined, JSON.stringify(audit).slice(0, 200));

    const tagWrite = await client.callTool({ name: 'check_permission',
      arguments: { permission: 'Tag:Write' } });
    const byTier = tagWrite.structuredContent?.allowed_by_tier;
    check(`${tier}: check_permission succeeds with structuredContent`,
      tagWrite.isError !== true && tagWrite.structuredContent !== undefined);
    check(`${tier}: check_permission Tag:Write allowed_by_tier is ${tier !== 'readonly'}`,
      byTier === (tier !== 'readonly'), JSON.stringify(byTier));

    const writeTool = tools.find((t) => t.annotations?.readOnlyHint === false);
    if (tier === 'readonly') {
      // tools/list shows only what the tier can reach; a write tool called by
      // name anyway is refused by the tier.
      check('readonly: tools/list lists no write tool', writeTool === undefined,
        writeTool?.name ?? '');
      const err = await expectRpcError(() =>
        client.callTool({ name: 'create_api_token', arguments: { name: 'x' } }));
      check(`readonly: calling write tool create_api_token is refused with ${kTierDenied}`,
        err?.code === kTierDenied, String(err?.code ?? 'no error'));
      checkEnvelope('readonly: create_api_token denial', err);
    }

    const invalid = await expectRpcError(() =>
      client.callTool({ name: 'query_audit_log', arguments: { limit: 0 } }));
    check(`${tier}: query_audit_log {limit: 0} is refused with ${kInvalidParams}`,
      invalid?.code === kInvalidParams, String(invalid?.code ?? 'no error'));
    check(`${tier}: the -32602 remediation names the field "limit"`,
      typeof invalid?.data?.remediation === 'string' && invalid.data.remediation.includes('limit'),
      JSON.stringify(invalid?.data?.remediation));
    checkEnvelope(`${tier}: -32602`, invalid);
  } catch (err) {
    check(`${tier}: unexpected exception`, false, String(err?.stack ?? err));
  } finally {
    await client.close();
  }
}

await checkTier('readonly', readonlyToken);
await checkTier('operator', operatorToken);
await checkTier('supervised', supervisedToken);

const refused = await expectRpcError(() => connect('yzt_this-token-does-not-exist'));
check('an invalid token is refused with HTTP 401', refused?.code === 401,
  String(refused?.code ?? refused ?? 'connected'));

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
