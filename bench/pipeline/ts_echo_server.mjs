// The official TypeScript MCP SDK serving one `echo` tool over Streamable
// HTTP, stateless and with JSON answers: the third column of the pipeline
// benchmark (run_points.py --ts-sdk). A new server and transport per
// request is how the SDK's stateless mode is used.
//
//   node ts_echo_server.mjs PORT_FILE
import { createServer } from "node:http";
import { writeFileSync, renameSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const sdk = path.join(here, "..", "..", "tests", "e2e", "node_modules", "@modelcontextprotocol",
  "sdk", "dist", "esm", "server");
const { McpServer } = await import(pathToFileURL(path.join(sdk, "mcp.js")).href);
const { StreamableHTTPServerTransport } =
  await import(pathToFileURL(path.join(sdk, "streamableHttp.js")).href);
const { z } = await import(pathToFileURL(path.join(here, "..", "..", "tests", "e2e",
  "node_modules", "zod", "index.js")).href);

function makeServer() {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.tool("echo", { message: z.string() }, async ({ message }) => ({
    content: [{ type: "text", text: message }],
  }));
  return server;
}

const http = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const server = makeServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on("close", () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
});

http.listen(0, "127.0.0.1", () => {
  const portFile = process.argv[2];
  writeFileSync(portFile + ".tmp", String(http.address().port) + "\n");
  renameSync(portFile + ".tmp", portFile);
});
