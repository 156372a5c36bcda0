#!/usr/bin/env node
// Rewrites the one field each event allows.
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const d = input.data;
const out = {};
switch (input.event) {
  case 'before_tool': out.data = { args: { ...d.args, command: 'echo GUARDED: ' + d.args.command } }; break;
  case 'after_tool': out.data = { result: String(d.result).replace(/SECRET/g, '[redacted]') }; break;
  case 'before_agent': out.data = { prompt: d.prompt + ' (answer briefly)' }; break;
  case 'before_model': out.data = { messages: [{ role: 'system', content: 'be terse' }, ...d.messages] }; break;
  case 'after_model': out.data = { response: d.response.replace(/SECRET/g, '[redacted]') }; break;
  case 'before_tool_selection': out.data = { available_tools: d.available_tools.filter(t => t !== 'shell').concat(['invented']) }; break;
}
process.stdout.write(JSON.stringify(out));
