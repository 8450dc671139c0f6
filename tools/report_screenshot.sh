#!/usr/bin/env bash
# Renders the HTML report of a store and saves a screenshot of it with headless Chromium.
#   tools/report_screenshot.sh STORE OUT.png [d2k report arguments, e.g. --task muon_orthogonalization]
# Fails when Chromium logs any console message: the page has no script and its
# Content-Security-Policy blocks every external load, so any message is an error.
# $D2K (default build/d2k), $D2K_CHROMIUM (default chromium), $WIDTH and $HEIGHT (the window,
# and so the screenshot, in pixels; default 1280 x 3000) change the defaults.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 STORE OUT.png [d2k report arguments...]" >&2
  exit 2
fi
store=$1
out=$2
shift 2
d2k=${D2K:-$(cd "$(dirname "$0")/.." && pwd)/build/d2k}
chromium=${D2K_CHROMIUM:-chromium}
width=${WIDTH:-1280}
height=${HEIGHT:-3000}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

"$d2k" --store "$store" report --format html --output "$scratch/report.html" "$@"
mkdir -p "$(dirname "$out")"
rm -f "$out"
# --no-sandbox: Chromium's sandbox cannot start as root in a container; the page is our own file.
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
  --enable-logging=stderr --v=0 --user-data-dir="$scratch/profile" \
  --window-size="$width,$height" --screenshot="$(realpath -m "$out")" \
  "file://$scratch/report.html" 2> "$scratch/chromium.log" > /dev/null
if grep -E ':CONSOLE[:(][0-9]+\)?\]' "$scratch/chromium.log" >&2; then
  echo "$0: the report logged console messages (above)" >&2
  exit 1
fi
if [ ! -s "$out" ]; then
  echo "$0: no screenshot; Chromium's log:" >&2
  cat "$scratch/chromium.log" >&2
  exit 1
fi
echo "$out (${width}x${height}, $(stat -c %s "$out") bytes)"
