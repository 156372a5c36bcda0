#!/usr/bin/env python3
"""Answers with its whole input as a system message, so tests see it."""
import json, sys
inp = json.load(sys.stdin)
print(json.dumps({"systemMessage": json.dumps(inp, sort_keys=True)}))
