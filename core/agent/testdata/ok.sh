#!/usr/bin/env bash
# A hook that lets everything through.
cat > /dev/null
echo '{}'
