#!/usr/bin/env node
// node bearer-proxy.mjs UPSTREAM_URL TOKEN
//
// A loopback reverse proxy that adds `Authorization: Bearer TOKEN` to each
// request, for the conformance CLI (it has no header option). Prints its own
// URL (with the upstream's path) as the first stdout line.
//
// Host and Origin naming the proxy are rewritten to the upstream so ordinary
// requests look local to it; any other value (the DNS-rebinding scenario's
// `Host: evil.example.com`) is passed on untouched so the server judges it.
import http from 'node:http';

const [upstreamText, token] = process.argv.slice(2);
if (!upstreamText || !token) {
  console.error('usage: bearer-proxy.mjs UPSTREAM_URL TOKEN');
  process.exit(2);
}
const upstream = new URL(upstreamText);
const loopbackNames = new Set(['127.0.0.1', 'localhost', '[::1]']);
if (upstream.protocol !== 'http:' || !loopbackNames.has(upstream.hostname)) {
  console.error('bearer-proxy: the upstream must be http:// on a loopback address');
  process.exit(2);
}

// Connection-level headers are per hop; never forward them.
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding',
  'upgrade', 'te', 'trailer']);
const endToEnd = (headers) => {
  const out = {};
  for (const [name, value] of Object.entries(headers)) if (!hopByHop.has(name)) out[name] = value;
  return out;
};

let ownHosts = new Set();

const proxy = http.createServer((req, res) => {
  const headers = endToEnd(req.headers);
  headers.authorization = `Bearer ${token}`;
  if (ownHosts.has((headers.host ?? '').toLowerCase())) headers.host = upstream.host;
  const origin = (headers.origin ?? '').toLowerCase();
  if (origin.startsWith('http://') && ownHosts.has(origin.slice('http://'.length))) {
    headers.origin = upstream.origin;
  }
  const forward = http.request({
    hostname: upstream.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: upstream.port || 80,
    method: req.method,
    path: req.url,
    headers,
  }, (answer) => {
    res.writeHead(answer.statusCode, answer.statusMessage, endToEnd(answer.headers));
    res.flushHeaders();
    answer.pipe(res);
  });
  forward.on('error', (err) => {
    if (res.headersSent) res.destroy();
    else res.writeHead(502, { 'content-type': 'text/plain' }).end(`bearer-proxy: ${err.message}`);
  });
  res.on('close', () => {
    if (!res.writableFinished) forward.destroy();
  });
  req.pipe(forward);
});

proxy.listen(0, '127.0.0.1', () => {
  const { port } = proxy.address();
  ownHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  console.log(`http://127.0.0.1:${port}${upstream.pathname}${upstream.search}`);
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
