// Preload for the conformance CLI on Node 20:
//   node --import ./node20-globsync.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js
// conformance 0.1.16 and 0.2.0-alpha.12 (installed as conformance-2026)
// import `globSync` from "fs", which only Node >= 22 exports, so on Node 20
// the module fails to link. Only their `tier-check` command calls it; we
// give the packages' own imports an `fs` with a globSync that throws, and
// leave every other importer alone.
import fs from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const FS_WITH_GLOBSYNC = `data:text/javascript,${encodeURIComponent([
  "import fs from 'node:fs';",
  "export * from 'node:fs';",
  'export default fs;',
  "export function globSync() { throw new Error('globSync needs Node 22 or newer'); }",
].join('\n'))}`;

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL ?? '';
  const fromConformance = parent.includes('/@modelcontextprotocol/conformance/') ||
    parent.includes('/conformance-2026/');
  if (fromConformance && (specifier === 'fs' || specifier === 'node:fs')) {
    return { url: FS_WITH_GLOBSYNC, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

if (isMainThread && typeof fs.globSync !== 'function') register(import.meta.url);
