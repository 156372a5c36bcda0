#!/usr/bin/env node
// A Gemini CLI extension's MCP server: the current time, over stdio
// (newline-delimited JSON-RPC 2.0). Node's standard library only.
'use strict';
const readline = require('node:readline');

const zone = process.env.CLOCK_TZ || 'UTC';
const tools = [{
  name: 'now',
  description: 'The current date and time in the configured time zone (CLOCK_TZ, default UTC).',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true },
}];

function send(msg) { process.stdout.write(JSON.stringify(msg) + '\n'); }

function handle(req) {
  switch (req.method) {
    case 'initialize':
      return {
        protocolVersion: (req.params && req.params.protocolVersion) || '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'clock', version: '1.0.0' },
      };
    case 'ping':
      return {};
    case 'tools/list':
      return { tools };
    case 'tools/call': {
      const name = req.params && req.params.name;
      if (name !== 'now') {
        return { content: [{ type: 'text', text: `no tool ${name}; the tool is now` }], isError: true };
      }
      let text;
      try {
        text = new Date().toLocaleString('en-GB', { timeZone: zone, dateStyle: 'full', timeStyle: 'long' });
      } catch (e) {
        return { content: [{ type: 'text', text: `CLOCK_TZ=${zone}: ${e.message}` }], isError: true };
      }
      return { content: [{ type: 'text', text }] };
    }
  }
  return undefined;
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    process.stderr.write(`clock: skipping a line that is not JSON: ${e.message}\n`);
    return;
  }
  if (req.id === undefined || req.id === null) return; // a notification
  const result = handle(req);
  if (result === undefined) {
    send({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: `method not found: ${req.method}` } });
  } else {
    send({ jsonrpc: '2.0', id: req.id, result });
  }
});
rl.on('close', () => process.exit(0));
