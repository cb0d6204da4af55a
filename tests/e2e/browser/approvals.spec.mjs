#!/usr/bin/env node
// Browser tests of the dashboard's sign-in and Approvals pages, driving
// Debian's chromium (headless) with playwright-core against a yuzu-server of
// their own.
//
//   YUZU_BUILD_DIR=build node tests/e2e/browser/approvals.spec.mjs
//
// Environment: YUZU_BUILD_DIR (default <repo>/build; the server is
// $YUZU_BUILD_DIR/bin/yuzu-server), CHROMIUM (default /usr/bin/chromium).
// Prints one "ok - ..." / "not ok - ..." line per test, then
// "N passed, M failed"; exits 1 on any failure, 2 when it cannot start.
//
// The submitter of every ticket is the admin (the owner of a supervised MCP
// token calling a gated tool); the reviewer is a second user, "approver",
// who enrols TOTP on the Approvals page and approves or rejects there.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import {
  Runner, RestSession, TotpDevice, YuzuServer, assert, assertEqual, mcpRequest,
} from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const binDir = join(process.env.YUZU_BUILD_DIR || join(root, 'build'), 'bin');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

const kApprovalRequired = -32006;
const kCsp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const kXss = '<script>window.__xss=1</script>';

if (!existsSync(chromiumPath)) {
  console.error(`approvals.spec: ${chromiumPath} is missing; apt-get install -y chromium`);
  process.exit(2);
}

const server = new YuzuServer(binDir);
const approver = { username: 'approver', password: `approver-${randomBytes(9).toString('hex')}` };
let admin;         // RestSession of the admin (the submitter)
let mcpToken;      // the admin's supervised MCP token
let totp = null;   // the approver's authenticator, once enrolled
let browser;

// Calls a gated MCP tool as the admin; answers the pending ticket's id.
async function mintTicket(description) {
  const name = `browser-e2e-${randomBytes(4).toString('hex')}`;
  const reply = await mcpRequest(server.baseUrl, mcpToken, 'tools/call', {
    name: 'create_management_group',
    arguments: { name, description },
  });
  assert(reply.error, `create_management_group should wait for approval: ${JSON.stringify(reply)}`);
  assertEqual(reply.error.code, kApprovalRequired, 'the gated call is answered with');
  let id = reply.error.data?.approval_id;
  if (!id) {
    const { body } = await admin.request('GET', '/api/v1/approvals?status=pending', undefined, 200);
    const mine = (body.approvals || []).find((a) => a.scope_expression.includes(name));
    id = mine?.id;
  }
  assert(typeof id === 'string' && id.length === 32, `an approval id, got ${JSON.stringify(id)}`);
  return id;
}

async function ticketStatus(id) {
  const { body } = await admin.request('GET', `/api/v1/approvals/${id}`, undefined, 200);
  return body.status;
}

// A fresh browser context (its own cookies), with CSP violations and page
// errors collected so a test can assert there were none.
async function newPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') page.problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => page.problems.push(`page error: ${err.message}`));
  return { context, page };
}

async function signIn(page, user) {
  await page.goto(`${server.baseUrl}/approvals`);
  assert(new URL(page.url()).pathname === '/login', `signed out, /approvals leads to /login (at ${page.url()})`);
  await page.fill('#login-username', user.username);
  await page.fill('#login-password', user.password);
  await Promise.all([
    page.waitForURL((url) => url.pathname === '/approvals'),
    page.click('#login-form button[type="submit"]'),
  ]);
}

// Clicks Approve or Reject in the ticket's row, answers the TOTP prompt and
// waits for the row to leave the list.
async function decide(page, id, action) {
  const row = page.locator(`tr[data-approval-id="${id}"]`);
  await row.locator(`button[data-action="${action}"]`).click();
  const dialog = page.locator('#totp-dialog');
  await dialog.waitFor({ state: 'visible' });
  if (await page.locator('#totp-code-row').isVisible()) {
    await page.fill('#totp-code', await totp.nextCode());
  }
  await page.fill('#totp-comment', `${action}d by the browser test`);
  await page.click('#totp-confirm');
  try {
    await row.waitFor({ state: 'detached', timeout: 10000 });
  } catch (err) {
    const shown = await page.locator('#totp-error').textContent();
    throw new Error(`the row stayed; the prompt says: ${shown}`);
  }
  await dialog.waitFor({ state: 'hidden' });
}

const runner = new Runner();

runner.test('dashboard responses carry the CSP and the other security headers', async () => {
  for (const path of ['/login', '/ui/app.js', '/ui/app.css', '/', '/approvals']) {
    const res = await fetch(server.baseUrl + path, { redirect: 'manual' });
    assertEqual(res.headers.get('content-security-policy'), kCsp, `${path} CSP`);
    assertEqual(res.headers.get('x-content-type-options'), 'nosniff', `${path} nosniff`);
    assertEqual(res.headers.get('referrer-policy'), 'no-referrer', `${path} Referrer-Policy`);
    assertEqual(res.headers.get('cache-control'), 'no-store', `${path} Cache-Control`);
  }
  const js = await fetch(`${server.baseUrl}/ui/app.js`);
  assert(js.headers.get('content-type').startsWith('text/javascript'), 'app.js is JavaScript');
  const root = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
  assertEqual(root.status, 303, 'GET / signed out');
  assertEqual(root.headers.get('location'), '/login', 'GET / signed out goes to');
});

runner.test('a wrong password is refused on the sign-in page, as text', async () => {
  const { context, page } = await newPage();
  try {
    await page.goto(`${server.baseUrl}/login`);
    await page.fill('#login-username', approver.username);
    await page.fill('#login-password', 'not-the-password-at-all');
    await page.click('#login-form button[type="submit"]');
    const error = page.locator('#login-error');
    await error.waitFor({ state: 'visible' });
    assert((await error.textContent()).includes('invalid username or password'),
      `error text: ${await error.textContent()}`);
    assertEqual(new URL(page.url()).pathname, '/login', 'still on');
  } finally {
    await context.close();
  }
});

runner.test('the approver enrols TOTP and approves a pending ticket; its row leaves the list', async () => {
  const id = await mintTicket('made by the browser test');
  const { context, page } = await newPage();
  try {
    await signIn(page, approver);
    const row = page.locator(`tr[data-approval-id="${id}"]`);
    await row.waitFor();
    assert((await row.locator('.tool').textContent()).includes('create_management_group'), 'tool column');
    assertEqual((await row.locator('.submitter').textContent()).trim(), 'admin', 'submitter column');
    assert(await row.locator('button[data-action="approve"]').isDisabled(),
      'Approve is disabled until a TOTP factor is active');

    // Enrol: the secret is shown as text; activate with a first code.
    await page.click('#enrol-start');
    await page.locator('#enrol-details').waitFor({ state: 'visible' });
    const secret = (await page.locator('#enrol-secret').textContent()).trim();
    const uri = await page.locator('#enrol-uri').textContent();
    assert(/^[A-Z2-7]{32}$/.test(secret), `a base32 secret, got ${secret}`);
    assert(uri.startsWith('otpauth://totp/') && uri.includes(secret), `an otpauth URI, got ${uri}`);
    totp = new TotpDevice(secret);
    await page.fill('#enrol-code', await totp.nextCode());
    await Promise.all([page.waitForEvent('load'), page.click('#enrol-activate button[type="submit"]')]);
    assertEqual(await page.locator('#mfa-enrol').count(), 0, 'enrolment section after activation');

    await decide(page, id, 'approve');
    assert((await page.locator('#approvals-status').textContent()).includes(`Approved request ${id}`),
      'the status line names the approved request');
    assertEqual(await ticketStatus(id), 'approved', 'ticket status over REST');

    await page.reload();
    assertEqual(await page.locator(`tr[data-approval-id="${id}"]`).count(), 0, 'rows for it after reload');
    assertEqual(page.problems.join('\n'), '', 'console errors and CSP violations');
  } finally {
    await context.close();
  }
});

runner.test('a <script> in the arguments is shown as text and never runs; reject removes it', async () => {
  assert(totp, 'needs the approver enrolled by the previous test');
  const id = await mintTicket(kXss);
  const { context, page } = await newPage();
  try {
    await signIn(page, approver);
    const row = page.locator(`tr[data-approval-id="${id}"]`);
    await row.waitFor();
    const args = await row.locator('pre.args').textContent();
    assert(args.includes('<script>'), `the arguments show "<script>" as text: ${args}`);
    assert(args.includes(kXss), `the whole description is shown: ${args}`);
    assertEqual(await row.locator('script').count(), 0, 'script elements inside the row');
    assertEqual(await page.evaluate(() => typeof window.__xss), 'undefined', 'typeof window.__xss');

    await decide(page, id, 'reject');
    assertEqual(await ticketStatus(id), 'rejected', 'ticket status over REST');
    assertEqual(await page.evaluate(() => typeof window.__xss), 'undefined', 'typeof window.__xss at the end');
    assertEqual(page.problems.join('\n'), '', 'console errors and CSP violations');
  } finally {
    await context.close();
  }
});

runner.test('the submitter sees its own ticket but cannot decide it', async () => {
  const id = await mintTicket('the admin may not approve this');
  const { context, page } = await newPage();
  try {
    await signIn(page, { username: 'admin', password: server.adminPassword });
    const row = page.locator(`tr[data-approval-id="${id}"]`);
    await row.waitFor();
    assert(await row.locator('button[data-action="approve"]').isDisabled(), 'Approve is disabled');
    assert(await row.locator('button[data-action="reject"]').isDisabled(), 'Reject is disabled');
    assert((await row.textContent()).includes('You submitted this request'), 'the row says why');
    assertEqual(await ticketStatus(id), 'pending', 'ticket status');

    // Logging out ends the session: /approvals leads to /login again.
    await Promise.all([page.waitForURL((u) => u.pathname === '/login'), page.click('.logout button')]);
    await page.goto(`${server.baseUrl}/approvals`);
    assertEqual(new URL(page.url()).pathname, '/login', 'after logout /approvals leads to');
  } finally {
    await context.close();
  }
});

async function setUp() {
  await server.start();
  admin = new RestSession(server.baseUrl);
  await admin.login('admin', server.adminPassword);
  await admin.request('POST', '/api/v1/users',
    { username: approver.username, password: approver.password, roles: ['ITServiceOwner'] }, 201);
  const expiresAt = Math.floor(Date.now() / 1000) + 24 * 3600;
  const { body } = await admin.request('POST', '/api/v1/tokens',
    { name: 'browser-e2e-supervised', mcp_tier: 'supervised', expires_at: expiresAt }, 201);
  mcpToken = body.token;
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
}

let ok = false;
try {
  await setUp();
  console.log(`# yuzu-server at ${server.baseUrl}, chromium ${browser.version()}`);
  ok = await runner.run(async () => {
    console.log(`    # yuzu-server log (tail):\n${server.logTail(30).replace(/^/gm, '    # ')}`);
  });
} catch (err) {
  console.error(`approvals.spec: setup failed: ${err?.stack ?? err}`);
  console.error(server.logTail(40));
  if (browser) await browser.close();
  await server.stop();
  process.exit(2);
}
await browser.close();
await server.stop();
process.exit(ok ? 0 : 1);
