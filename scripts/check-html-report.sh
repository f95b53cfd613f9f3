#!/usr/bin/env bash
# check-html-report.sh — open a peakbench HTML report in headless Chromium,
# take a screenshot, and fail on console errors, on a page that does not
# render, or on missing charts.
#
#   scripts/check-html-report.sh [REPORT.html [SCREENSHOT.png]]
#
# Without REPORT.html it makes one: from $PEAKBENCH_RESULTS (a -format=json
# file) when set, else from a short run of the pure-Go backends
# (go run ./bench -backend=go -op=gemm,axpy,sum -suite=quick). The screenshot
# goes to build/report-screenshot.png unless named. Installs Debian's
# chromium when no Chromium is found (needs root and apt-get).
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
mkdir -p build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

report=${1:-}
shot=${2:-build/report-screenshot.png}

if [[ -z "$report" ]]; then
	results=${PEAKBENCH_RESULTS:-}
	if [[ -z "$results" ]]; then
		results=$work/results.json
		echo "check-html-report: measuring a small run for the report…" >&2
		"$GO" run ./bench -backend=go -op=gemm,axpy,sum -suite=quick -min-time=2ms -format=json -o "$results"
	fi
	report=build/report.html
	"$GO" run ./bench report -o "$report" "$results"
fi
[[ -s "$report" ]] || { echo "check-html-report: $report is missing or empty" >&2; exit 1; }

chrome=""
for c in chromium chromium-browser google-chrome google-chrome-stable; do
	if command -v "$c" >/dev/null; then chrome=$(command -v "$c"); break; fi
done
if [[ -z "$chrome" ]]; then
	echo "check-html-report: installing chromium (apt-get)…" >&2
	if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
	chrome=$(command -v chromium)
fi

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--disable-extensions --hide-scrollbars --mute-audio
	--enable-logging=stderr --v=0 --virtual-time-budget=5000)
url="file://$(realpath "$report")"

# 1. The DOM as rendered: every chart an <svg>, and the sections present.
"$chrome" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$work")" --dump-dom "$url" >"$work/dom.html" 2>"$work/dom.log" || {
	echo "check-html-report: chromium failed on $report:" >&2; tail -20 "$work/dom.log" >&2; exit 1; }

# 2. A screenshot, for a person to look at.
"$chrome" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$work")" --window-size=1280,2400 --screenshot="$(realpath -m "$shot")" "$url" \
	>"$work/shot.out" 2>"$work/shot.log" || {
	echo "check-html-report: chromium could not take a screenshot:" >&2; tail -20 "$work/shot.log" >&2; exit 1; }

fail=0
# Console messages: the page has no script, so any console line (an uncaught
# exception, a refused or failed load) is an error. Chromium logs them as
# "INFO:CONSOLE" or "ERROR:CONSOLE" lines on stderr.
if grep -hE 'Uncaught|:CONSOLE[:(]|CONSOLE\(|Refused to|net::ERR_' "$work/dom.log" "$work/shot.log" >"$work/errors.txt"; then
	echo "check-html-report: console errors in $report:" >&2
	cat "$work/errors.txt" >&2
	fail=1
fi
charts=$(grep -o '<svg class="chart"' "$work/dom.html" | wc -l)
sourcecharts=$(grep -o '<svg class="chart"' "$report" | wc -l)
if [[ $charts -lt 1 || $charts -ne $sourcecharts ]]; then
	echo "check-html-report: $charts chart(s) rendered, $sourcecharts in the file" >&2
	fail=1
fi
for id in glance summary machine roofline ops failures environment method; do
	grep -q "id=\"$id\"" "$work/dom.html" || { echo "check-html-report: section #$id missing" >&2; fail=1; }
done
# Self-contained: nothing fetched from the network.
if grep -Eio '(src|href)="?(https?:)?//[^" >]*' "$work/dom.html" >"$work/fetches.txt"; then
	echo "check-html-report: the page fetches from the network:" >&2; cat "$work/fetches.txt" >&2; fail=1
fi
if [[ ! -s "$shot" ]]; then
	echo "check-html-report: no screenshot written" >&2; fail=1
fi
[[ $fail -eq 0 ]] || exit 1
echo "check-html-report: ok: $report renders, $charts chart(s), no console errors; screenshot $shot"
