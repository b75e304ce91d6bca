#!/usr/bin/env bash
# Installs the headless browser that tests/test_browser.py drives: Debian's chromium and its
# chromedriver (selenium-manager and Playwright cannot download browsers on machines without the
# internet at large). Does nothing where both are already installed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
