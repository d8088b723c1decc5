#!/usr/bin/env bash
# Debian's headless-capable Chromium and its WebDriver, for the dashboard's real-browser test
# (e2e/tests/dashboard.rs drives Chromium through chromedriver).
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    echo "45-chromium: $(chromedriver --version 2>/dev/null | cut -d' ' -f1-2) present"
    exit 0
fi
sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
$sudo_ apt-get update -qq
# fonts-dejavu-core: a font for the page's text even on a minimal image.
DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends \
    chromium chromium-driver fonts-dejavu-core
chromedriver --version
