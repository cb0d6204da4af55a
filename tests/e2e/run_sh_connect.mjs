#!/usr/bin/env node
// node run_sh_connect.mjs RUN_SH_OUTPUT_FILE
//
// Reads what scripts/run.sh printed and connects the official SDK client with
// exactly the values it printed: the `claude mcp add` line (URL and
// --header) and the Claude Desktop JSON (mcp-remote's URL, and --header with
// the ${YUZU_AUTH} placeholder filled from its env block). With each it lists
// the tools and waits for list_agents to show the local agent run.sh
// started. Prints "ok - ..."/"not ok - ..." lines, then "N passed, M failed".
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [outputFile] = process.argv.slice(2);
if (!outputFile) {
  console.error('usage: run_sh_connect.mjs RUN_SH_OUTPUT_FILE');
  process.exit(2);
}
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

const lines = readFileSync(outputFile, 'utf8').split('\n');

// claude mcp add --transport http yuzu URL --header "Authorization: Bearer X"
const claudeLine = lines.find((l) => l.trim().startsWith('claude mcp add '));
const claude = claudeLine?.match(/--transport http yuzu (\S+) --header "([^"]+)"/);
check('run.sh printed a claude mcp add line with a URL and a header', Boolean(claude),
  claudeLine ?? '(no such line)');

// {"mcpServers": {"yuzu": {...}}}
const desktopLine = lines.find((l) => l.trim().startsWith('{"mcpServers"'));
let desktop = null;
try {
  desktop = JSON.parse(desktopLine).mcpServers.yuzu;
} catch {
  desktop = null;
}
check('run.sh printed Claude Desktop JSON that parses', Boolean(desktop), desktopLine ?? '(none)');

function headerOf(spec) {
  const colon = spec.indexOf(':');
  return [spec.slice(0, colon).trim(), spec.slice(colon + 1).trim()];
}

async function tryClient(label, url, headerSpec) {
  const [name, value] = headerOf(headerSpec);
  const client = new Client({ name: `yuzu-e2e-run-sh-${label}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { [name]: value } },
  });
  try {
    await client.connect(transport);
    check(`${label}: the SDK client connects with the printed values`, true);
    const tools = await client.listTools();
    check(`${label}: tools/list answers`, tools.tools.length > 0, `${tools.tools.length} tools`);
    // The agent run.sh started enrolls within seconds.
    let agents = [];
    for (let i = 0; i < 60; i += 1) {
      const r = await client.callTool({ name: 'list_agents', arguments: {} });
      agents = r.structuredContent?.agents ?? [];
      if (agents.some((a) => a.hostname === hostname())) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    check(`${label}: list_agents shows run.sh's local agent on this host`,
      agents.some((a) => a.hostname === hostname()), JSON.stringify(agents).slice(0, 300));
  } catch (err) {
    check(`${label}: the SDK client connects and calls tools`, false, String(err));
  } finally {
    await client.close().catch(() => {});
  }
}

if (claude) await tryClient('claude-code', claude[1], claude[2]);
if (desktop) {
  const args = desktop.args ?? [];
  check('desktop: runs mcp-remote with the URL and a --header',
    desktop.command === 'npx' && args[0] === 'mcp-remote' && args[2] === '--header',
    JSON.stringify(args));
  const header = String(args[3] ?? '').replace('${YUZU_AUTH}', desktop.env?.YUZU_AUTH ?? '');
  await tryClient('claude-desktop', args[1], header);
  if (claude) {
    check('both snippets name the same URL and credential',
      args[1] === claude[1] && headerOf(header)[1] === headerOf(claude[2])[1]);
  }
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
