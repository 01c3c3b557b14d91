#!/usr/bin/env bash
# The browser tests drive Debian's chromium through Playwright; install it where missing.
set -u
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then exit 0; fi
if command -v chromium >/dev/null; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the browser tests..."
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && exit 0
fi
echo "ERROR: Chromium is needed for the browser tests: 'sudo apt-get install chromium', or set CHROMIUM_PATH to a Chromium binary." >&2
exit 1
