// Drives `d2k mcp` with the official MCP TypeScript SDK client (the one Claude Code embeds):
// handshake, tools/list, read, write, bash, a path that escapes, an unknown tool, ping, and a
// submit that evaluates a correct solution of a CPU fixture task.
//
// node client_test.mjs D2K_BINARY STORE TASKS_DIR WORKSPACE CORRECT_SOLUTION
// Prints one JSON line with what it saw; exits 1 (with the failed assertion) on any mismatch.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const [binary, store, tasks, workspace, correctSolution] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: binary,
  args: ['--store', store, '--tasks', tasks, 'mcp', '--workspace', workspace],
  env: process.env,  // the SDK otherwise passes only a few variables
  stderr: 'inherit',
});
const client = new Client({ name: 'd2k-sdk-test', version: '1.0.0' });
await client.connect(transport);

const text = (result) => result.content[0].text;
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });

assert.equal(client.getServerVersion().name, 'd2k');
assert.ok(client.getServerCapabilities().tools);
assert.match(client.getInstructions(), /submit/);

const tools = (await client.listTools()).tools.map((tool) => tool.name);
assert.deepEqual(tools, ['read', 'write', 'bash', 'submit']);

const instructions = await call('read', { path: 'INSTRUCTIONS.md' });
assert.ok(!instructions.isError);
assert.match(text(instructions), /turns/);

const solution = readFileSync(correctSolution, 'utf8');
const written = await call('write', { path: 'solution.py', content: solution });
assert.ok(!written.isError, text(written));
assert.equal(text(await call('read', { path: 'solution.py' })), solution);

const bash = await call('bash', { command: 'grep -c torch.add solution.py', timeout: 30 });
assert.ok(!bash.isError, text(bash));
assert.match(text(bash), /exited with status 0/);

const escape = await call('read', { path: '../outside.txt' });
assert.equal(escape.isError, true);
assert.match(text(escape), /outside the workspace/);

const badArguments = await call('write', { path: 'x.py' });
assert.equal(badArguments.isError, true);

await assert.rejects(call('nope', {}), (error) => error instanceof McpError && error.code === -32602);
assert.deepEqual(await client.ping(), {});

const submitted = await call('submit', { path: 'solution.py' });
assert.ok(!submitted.isError, text(submitted));
const summary = submitted.structuredContent;
assert.equal(summary.eligible, true, text(submitted));
assert.equal(summary.workloads.length, 2);
for (const workload of summary.workloads) {
  assert.equal(workload.verdict, 'passed');
  assert.ok(workload.latency_s > 0 && workload.speedup > 0);
}
assert.ok(summary.geomean_speedup > 0);

await client.close();
console.log(JSON.stringify({ tools, evaluation_id: summary.evaluation_id, geomean_speedup: summary.geomean_speedup }));
