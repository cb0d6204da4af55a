// Shared pieces of the dashboard browser tests: a yuzu-server of their own
// (fresh data dir, port 0, known admin password), a small REST client with a
// cookie session, raw MCP JSON-RPC calls with a bearer token, RFC 6238 TOTP
// codes computed here (not by the server), and a tiny test runner that
// prints "ok - ..." / "not ok - ..." and "N passed, M failed".
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// --- yuzu-server -------------------------------------------------------------

export class YuzuServer {
  // `args`: extra yuzu-server flags (e.g. ['--mcp-allowed-origin', origin]).
  constructor(binDir, { args = [] } = {}) {
    this.binary = join(binDir, 'yuzu-server');
    this.extraArgs = args;
    this.adminPassword = `browser-e2e-${randomBytes(12).toString('hex')}`;
    this.dir = mkdtempSync(join(tmpdir(), 'yuzu-browser-e2e-'));
    this.dataDir = join(this.dir, 'data');
    this.log = '';
    this.child = null;
    this.baseUrl = '';
    this.agentUrl = '';  // the agent plane (listen.json's "agent"), for yuzu-agent --server
  }

  async start() {
    if (!existsSync(this.binary)) {
      throw new Error(`${this.binary} is missing; build the yuzu-server target first`);
    }
    const env = { ...process.env, YUZU_BOOTSTRAP_ADMIN_PASSWORD: this.adminPassword };
    this.child = spawn(this.binary, [
      '--listen', '127.0.0.1:0', '--agent-listen', '127.0.0.1:0', '--data-dir', this.dataDir,
      ...this.extraArgs,
    ], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk) => {
      this.log += chunk.toString();
      if (this.log.length > 200000) this.log = this.log.slice(-100000);
    };
    this.child.stdout.on('data', keep);
    this.child.stderr.on('data', keep);
    const listenFile = join(this.dataDir, 'listen.json');
    for (let i = 0; i < 300; i += 1) {
      if (this.child.exitCode !== null) {
        throw new Error(`yuzu-server exited with ${this.child.exitCode}:\n${this.log}`);
      }
      if (existsSync(listenFile)) {
        try {
          const listen = JSON.parse(readFileSync(listenFile, 'utf8'));
          this.baseUrl = listen.management;
          this.agentUrl = listen.agent ?? '';
          if (this.baseUrl) return;
        } catch {
          // written atomically, but be patient with a slow file system
        }
      }
      await sleep(100);
    }
    throw new Error(`yuzu-server did not write listen.json in 30 s:\n${this.log}`);
  }

  async stop() {
    if (this.child && this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  logTail(lines = 40) {
    return this.log.split('\n').slice(-lines).join('\n');
  }
}

// --- yuzu-agent --virtual N ---------------------------------------------------

// One `yuzu-agent --virtual n` against the server's agent plane, its state
// in the server's temp dir (removed with it).
export class VirtualAgents {
  constructor(binDir, srv, n, enrollmentToken) {
    this.binary = join(binDir, 'yuzu-agent');
    this.args = ['--server', srv.agentUrl, '--state-dir', join(srv.dir, 'agents'),
      '--virtual', String(n)];
    this.env = { ...process.env, YUZU_AGENT_ENROLLMENT_TOKEN: enrollmentToken };
    this.child = null;
    this.log = '';
  }

  start() {
    if (!existsSync(this.binary)) {
      throw new Error(`${this.binary} is missing; build the yuzu-agent target first`);
    }
    this.child = spawn(this.binary, this.args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk) => {
      this.log += chunk.toString();
      if (this.log.length > 200000) this.log = this.log.slice(-100000);
    };
    this.child.stdout.on('data', keep);
    this.child.stderr.on('data', keep);
  }

  running() {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  async stop() {
    if (!this.running()) return;
    const exited = new Promise((ok) => this.child.once('exit', ok));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10000);
    await exited;
    clearTimeout(timer);
  }

  logTail(lines = 20) {
    return this.log.split('\n').slice(-lines).join('\n');
  }
}

// Calls async `probe` every `everyMs` until it returns a truthy value, and
// returns that value; throws after `timeoutMs` naming `what`.
export async function waitUntil(what, probe, timeoutMs, everyMs = 200) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

// --- REST with a web session ---------------------------------------------------

export class RestSession {
  constructor(baseUrl) {
    this.baseUrl = baseUrl;
    this.cookies = new Map();
    this.csrf = '';
  }

  keepCookies(res) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }

  // Resolves to {status, body}; throws when the status is not `expect`.
  async request(method, path, body, expect) {
    const headers = { Accept: 'application/json' };
    if (this.cookies.size > 0) {
      headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    if (method !== 'GET' && this.csrf) headers['X-CSRF-Token'] = this.csrf;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    this.keepCookies(res);
    const text = await res.text();
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    if (expect !== undefined && res.status !== expect) {
      throw new Error(`${method} ${path}: expected HTTP ${expect}, got ${res.status}: ${text}`);
    }
    return { status: res.status, body: parsed };
  }

  async login(username, password) {
    const { body } = await this.request('POST', '/login', { username, password }, 200);
    this.csrf = body.csrf_token;
  }
}

// --- MCP over HTTP -----------------------------------------------------------------

// One JSON-RPC request to /mcp/v1/ with a bearer token; resolves to the
// JSON-RPC response object.
export async function mcpRequest(baseUrl, token, method, params, id = 1) {
  const res = await fetch(`${baseUrl}/mcp/v1/`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`MCP ${method}: HTTP ${res.status}: ${text}`);
  return JSON.parse(text);
}

// --- TOTP (RFC 6238: HMAC-SHA1, 30 s steps, 6 digits) ---------------------------

export function base32Decode(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const clean = text.toUpperCase().replace(/[\s=]/g, '');
  let bits = 0;
  let value = 0;
  const out = [];
  for (const ch of clean) {
    const v = alphabet.indexOf(ch);
    if (v < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function hotp(key, counter) {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(msg).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const bin = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(bin % 1000000).padStart(6, '0');
}

// Hands out codes for one secret the way an authenticator would be used:
// the server accepts steps now-1..now+1 and never the same step twice, so
// each code is for a later step than the last; waits when none is left.
export class TotpDevice {
  constructor(secretBase32) {
    this.key = base32Decode(secretBase32);
    this.lastStep = -1;
  }

  async nextCode() {
    for (;;) {
      const t = Date.now() / 1000;
      const now = Math.floor(t / 30);
      const secondsLeft = (now + 1) * 30 - t;
      // now-1 only while it is safely inside the server's window.
      const earliest = secondsLeft > 5 ? now - 1 : now;
      const step = Math.max(this.lastStep + 1, earliest);
      if (step <= now + 1) {
        this.lastStep = step;
        return hotp(this.key, step);
      }
      await sleep((secondsLeft + 0.5) * 1000);
    }
  }
}

// --- a tiny runner ------------------------------------------------------------------

export class Runner {
  constructor() {
    this.tests = [];
    this.passed = 0;
    this.failed = 0;
  }

  test(name, fn) {
    this.tests.push({ name, fn });
  }

  async run(onFailure) {
    for (const { name, fn } of this.tests) {
      try {
        await fn();
        this.passed += 1;
        console.log(`ok - ${name}`);
      } catch (err) {
        this.failed += 1;
        console.log(`not ok - ${name}`);
        console.log(String(err?.stack ?? err).replace(/^/gm, '    '));
        if (onFailure) await onFailure(name);
      }
    }
    console.log(`${this.passed} passed, ${this.failed} failed`);
    return this.failed === 0;
  }
}

export function assert(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

export function assertEqual(actual, expected, message) {
  if (actual !== expected) {
    throw new Error(`${message}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}
