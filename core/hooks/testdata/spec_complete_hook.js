#!/usr/bin/env node
// The "Complete Hook" of seed 003 (the hook-protocol specification), as
// the specification writes it: it rejects an input without `event` or
// `context`. processEvent, left to the reader there ("Your logic here"),
// reports the event and the tool it saw, so a test can check what the
// hook read.

const fs = require('fs');

try {
  // Read and parse input
  const input = JSON.parse(fs.readFileSync(0, 'utf-8'));

  // Validate input
  if (!input.event || !input.context) {
    throw new Error('Invalid input');
  }

  // Process event
  const result = processEvent(input);

  // Return response
  console.log(
    JSON.stringify({
      allow: result.success,
      message: result.message,
      metadata: {
        duration: result.duration,
        timestamp: new Date().toISOString(),
        event: input.event,
        tool: input.context.tool,
        session: input.context.session && input.context.session.id,
      },
    })
  );
} catch (error) {
  // Return error response
  console.log(
    JSON.stringify({
      allow: false,
      message: `Error: ${error.message}`,
      metadata: {
        error: error.name,
        stack: error.stack,
      },
    })
  );
  process.exit(1);
}

function processEvent(input) {
  const start = Date.now();
  // A guard of the kind the specification describes: no rm -rf.
  const command = (input.context.args && input.context.args.command) || '';
  if (input.event === 'pre-tool-call' && /rm -rf/.test(command)) {
    return { success: false, message: 'Dangerous operation detected', duration: 0 };
  }
  return {
    success: true,
    message: 'Success',
    duration: (Date.now() - start) / 1000,
  };
}
