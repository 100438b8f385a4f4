#!/bin/sh
# Render an HTML file (e.g. the report of `evaltrans analyze ... --html OUT.html`) to a PNG
# with headless Chromium, every network request refused (an unreachable proxy and no host
# resolution), so the picture shows only what the file holds itself.
#
#   scripts/render_html.sh REPORT.html OUT.png [WIDTH [HEIGHT]]
#
# Needs Chromium (Debian: apt-get install chromium); CI does not install it, the HTML is
# checked there by tests/io/test_html_report.py (parsed with lxml). docs/analysis.md.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 REPORT.html OUT.png [WIDTH [HEIGHT]]" >&2
    exit 2
fi
in=$1
out=$2
width=${3:-1200}
height=${4:-4000}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
    echo "$0: no chromium found (apt-get install chromium)" >&2
    exit 2
fi
case $in in
    /*) url="file://$in" ;;
    *) url="file://$(pwd)/$in" ;;
esac
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$profile" --no-first-run --disable-extensions \
    --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND" \
    --window-size="$width,$height" --screenshot="$out" "$url" 2>/dev/null
test -s "$out"
echo "$out"
