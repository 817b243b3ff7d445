// Third-party Node MCP tooling against `sextant serve`, pinned by package-lock.json beside this
// file (install: `npm ci --prefix tests/mcp_node`):
//
// - the MCP Inspector CLI (@modelcontextprotocol/inspector) over stdio: `tools/list` with
//   `--strict` (all 13 core tools; no schema-portability error, and no finding at all in an
//   input schema) and one `tools/call` of `search` (its SDK client validates the
//   structuredContent against the tool's outputSchema);
// - the official conformance suite (@modelcontextprotocol/conformance) over streamable HTTP:
//   the server scenarios server-initialize, tools-list, ping and dns-rebinding-protection, every
//   check of which must be SUCCESS.
//
// Run by crates/cli/tests/mcp_node.rs, which builds and indexes the fixture repository; by hand:
//
//   SEXTANT_HOME=DIR tests/mcp_node/node_modules/.bin/node tests/mcp_node/run.mjs \
//       --bin target/debug/sextant --repo REPO
//
// The Inspector needs Node >= 22.19: run this with the pinned `node` package's binary (above),
// not the system node. Exit code 0 when every check passes; prints "N passed, M failed".

import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual, parseArgs } from "node:util";

const HERE = dirname(fileURLToPath(import.meta.url));
const MODULES = join(HERE, "node_modules");
const TOOLS = [
  "search", "symbol", "source", "references", "calls", "hierarchy", "impact", "changes", "path",
  "grep", "overview", "status", "index",
];
const SCENARIOS = ["server-initialize", "tools-list", "ping", "dns-rebinding-protection"];
const STEP_TIMEOUT_MS = 120_000;

const { values: opts } = parseArgs({
  options: { bin: { type: "string" }, repo: { type: "string" } },
});
if (!opts.bin || !opts.repo || !process.env.SEXTANT_HOME) {
  console.error("usage: SEXTANT_HOME=DIR node run.mjs --bin PATH/TO/sextant --repo DIR");
  process.exit(2);
}
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `node ${process.versions.node} is too old for the Inspector (>= 22.19): run with ` +
      `${join(MODULES, ".bin", "node")} (npm ci --prefix tests/mcp_node)`,
  );
  process.exit(2);
}

/** The file a package's `bin` entry names. */
function binOf(pkg, name) {
  const dir = join(MODULES, ...pkg.split("/"));
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  return join(dir, typeof meta.bin === "string" ? meta.bin : meta.bin[name]);
}

const INSPECTOR = binOf("@modelcontextprotocol/inspector", "mcp-inspector");
const CONFORMANCE = binOf("@modelcontextprotocol/conformance", "conformance");

// The tools keep their state (the Inspector's catalog and secrets) under a throwaway HOME.
const scratch = mkdtempSync(join(tmpdir(), "sextant-mcp-node-"));
const toolEnv = {
  ...process.env,
  HOME: scratch,
  XDG_CONFIG_HOME: join(scratch, ".config"),
  XDG_DATA_HOME: join(scratch, ".local", "share"),
  PATH: `${join(MODULES, ".bin")}:${process.env.PATH ?? ""}`,
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};

/** Runs `node script args…` (the running node, so the pinned one), bounded in time. */
function runNode(script, args, cwd = scratch) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [script, ...args], {
      cwd,
      env: toolEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${STEP_TIMEOUT_MS} ms]`;
      child.kill("SIGKILL");
    }, STEP_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

const results = [];
function record(name, problems, ms, output = "") {
  results.push({ name, problems });
  if (problems.length === 0) {
    console.log(`ok   ${name} (${ms} ms)`);
    return;
  }
  console.log(`FAIL ${name} (${ms} ms)`);
  for (const p of problems) console.log(`       - ${p}`);
  if (output) console.log(indent(output.slice(-4000)));
}
const indent = (text) =>
  text.replace(/\x1b\[[0-9;]*m/g, "").trimEnd().replace(/^/gm, "       | ");
const tail = (r) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

function parseJson(text, problems) {
  try {
    return JSON.parse(text);
  } catch (e) {
    problems.push(`stdout is not one JSON document: ${e.message}`);
    return undefined;
  }
}

/** `mcp-inspector --cli … -- sextant serve --repo REPO` (stdio). */
function inspector(args) {
  return runNode(INSPECTOR, [
    "--cli",
    "--format", "json",
    "-e", `SEXTANT_HOME=${process.env.SEXTANT_HOME}`,
    "-e", "SEXTANT_LOG=warn",
    ...args,
    "--", opts.bin, "serve", "--repo", opts.repo,
  ]);
}

async function inspectorToolsList() {
  const r = await inspector(["--method", "tools/list", "--strict"]);
  const problems = [];
  // --strict exits 6 when a schema-portability finding is an error.
  if (r.code !== 0) problems.push(`the Inspector exited ${r.code}`);
  const out = parseJson(r.stdout, problems);
  const tools = out?.result?.tools ?? [];
  const names = tools.map((t) => t.name).sort();
  if (!isDeepStrictEqual(names, [...TOOLS].sort())) {
    problems.push(`tools ${JSON.stringify(names)}, expected ${JSON.stringify([...TOOLS].sort())}`);
  }
  for (const t of tools) {
    if (!t.description) problems.push(`${t.name}: no description`);
    if (t.inputSchema?.type !== "object") problems.push(`${t.name}: inputSchema is not an object`);
    if (t.outputSchema?.type !== "object") problems.push(`${t.name}: outputSchema is not an object`);
  }
  let warnings = 0;
  for (const { toolName, findings } of out?.schemaFindings ?? []) {
    for (const f of findings) {
      warnings += 1;
      // docs/mcp.md: inputs use single JSON types; output schemas may keep nullable unions.
      if (f.severity === "error" || f.schema === "inputSchema") {
        problems.push(`${toolName}: ${f.severity} ${f.rule} at ${f.schema}.${f.path}: ${f.issue}`);
      }
    }
  }
  record(
    `inspector stdio tools/list: ${tools.length} tools, --strict: 0 errors, ` +
      `${warnings} output-schema warnings`,
    problems,
    r.ms,
    problems.length ? tail(r) : "",
  );
}

async function inspectorToolsCall() {
  const r = await inspector([
    "--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=UserStore",
  ]);
  const problems = [];
  // The Inspector's SDK client refuses (non-zero exit) a structuredContent that does not match
  // the tool's outputSchema.
  if (r.code !== 0) problems.push(`the Inspector exited ${r.code}`);
  const result = parseJson(r.stdout, problems)?.result;
  if (result) {
    if (result.isError) problems.push(`isError: ${JSON.stringify(result.content)}`);
    const sc = result.structuredContent;
    const hit = (sc?.data?.results ?? []).find(
      (h) => h.symbol?.name === "UserStore" && h.symbol?.path === "shop/users.py",
    );
    if (!hit) problems.push("no UserStore in shop/users.py among the results");
    if (sc?.meta?.populated !== true) problems.push("meta.populated is not true");
    const text = result.content?.[0]?.type === "text" ? result.content[0].text : undefined;
    let same = false;
    try {
      same = isDeepStrictEqual(JSON.parse(text), sc);
    } catch {}
    if (!same) problems.push("the first text block is not the structuredContent as JSON");
  }
  record("inspector stdio tools/call search", problems, r.ms, problems.length ? tail(r) : "");
}

/** `sextant serve --http 127.0.0.1:0`, resolved with its URL once it prints it. */
function startHttpServer() {
  const child = spawn(
    opts.bin,
    ["serve", "--http", "127.0.0.1:0", "--repo", opts.repo],
    { env: { ...process.env, SEXTANT_LOG: "warn" }, stdio: ["ignore", "ignore", "pipe"] },
  );
  const server = { child, stderr: "", exited: null };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no address on stderr after 30 s")), 30_000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => {
      server.stderr += d;
      // A whole line: stderr may arrive cut anywhere.
      const m = server.stderr.match(/MCP over streamable HTTP at (http:\/\/\S+)\r?\n/);
      if (m && !server.url) {
        server.url = m[1];
        clearTimeout(timer);
        resolve(server);
      }
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("exit", (code, signal) => {
      server.exited = code ?? signal;
      clearTimeout(timer);
      reject(new Error(`the server exited (${server.exited}) before printing its address`));
    });
  }).catch((e) => {
    child.kill("SIGKILL");
    throw new Error(`${e.message}\n${server.stderr}`);
  });
}

/** SIGTERM, then SIGKILL if the server is still there after 5 s. */
function stop(server) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.child.kill("SIGKILL"), 5_000);
    server.child.on("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    server.child.kill("SIGTERM");
  });
}

/** Every check object in the checks.json files under `dir`. */
function checksUnder(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) found.push(...checksUnder(p));
    else if (name === "checks.json") found.push(...JSON.parse(readFileSync(p, "utf8")));
  }
  return found;
}

async function conformance(server, scenario) {
  const outDir = mkdtempSync(join(scratch, `conformance-${scenario}-`));
  const r = await runNode(CONFORMANCE, [
    "server", "--url", server.url, "--scenario", scenario, "-o", outDir,
  ]);
  const problems = [];
  if (r.code !== 0) problems.push(`the conformance runner exited ${r.code}`);
  let checks = [];
  try {
    checks = checksUnder(outDir);
  } catch (e) {
    problems.push(`reading checks.json: ${e.message}`);
  }
  if (checks.length === 0) problems.push("no checks recorded");
  for (const c of checks) {
    if (c.status !== "SUCCESS" && c.status !== "INFO") {
      const why = c.errorMessage ? `: ${c.errorMessage}` : "";
      problems.push(
        `${c.id} ${c.status}${why} (${c.description}) details=${JSON.stringify(c.details ?? {})}`,
      );
    }
  }
  const passed = checks.filter((c) => c.status === "SUCCESS").length;
  record(
    `conformance http ${scenario}: ${passed}/${checks.length} checks`,
    problems,
    r.ms,
    problems.length ? tail(r) : "",
  );
}

let server;
try {
  await inspectorToolsList();
  await inspectorToolsCall();
  const started = Date.now();
  try {
    server = await startHttpServer();
    record(`sextant serve --http at ${server.url}`, [], Date.now() - started);
  } catch (e) {
    record("sextant serve --http", [e.message], Date.now() - started);
  }
  if (server) {
    for (const scenario of SCENARIOS) await conformance(server, scenario);
    const alive = server.exited === null;
    record("the HTTP server is still serving after the scenarios", alive ? [] : [
      `it exited (${server.exited}); stderr:\n${server.stderr}`,
    ], 0);
  }
} finally {
  if (server && server.exited === null) await stop(server);
  rmSync(scratch, { recursive: true, force: true });
}

const failed = results.filter((r) => r.problems.length > 0);
if (failed.length) console.log(`failed: ${failed.map((r) => r.name).join("; ")}`);
console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
