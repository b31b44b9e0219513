#!/usr/bin/env bash
# `autoresearch report --format html` in a real browser: Debian's chromium,
# headless. For each committed run log it checks that the page loads with no
# console message (a blocked fetch, a script, a CSP violation: the page has none
# of those, so any message is a fault), that the browser parsed the five SVG
# plots, and that a screenshot shows them drawn: each plot's colours cover the
# pixels a drawn plot covers. A page with the plots removed must fail the same
# check, so the check cannot pass on a blank page.
#
#   report_in_chromium.sh AUTORESEARCH_BINARY SOURCE_DIR WORK_DIR
#
# Exit 77 (ctest: skipped) when chromium or netpbm is missing, unless CI=true,
# where a missing browser fails. Screenshots stay in WORK_DIR.
set -euo pipefail
bin="$1"
src="$2"
work="$3"

missing=()
chromium=""
for c in chromium chromium-browser; do
  if command -v "$c" >/dev/null; then chromium="$c"; break; fi
done
[ -n "$chromium" ] || missing+=(chromium)
for t in pngtopnm ppmhist; do command -v "$t" >/dev/null || { missing+=(netpbm); break; }; done
if [ ${#missing[@]} -gt 0 ]; then
  msg="the browser test needs ${missing[*]} (Debian: apt-get install chromium netpbm; scripts/test.sh installs them)"
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: $msg; CI=true, so it may not be skipped" >&2
    exit 1
  fi
  echo "SKIP: $msg"
  exit 77
fi

rm -rf "$work"
mkdir -p "$work"
fail=0

# Runs chromium on a page. --no-sandbox: CI runs as root in a container, where
# Chromium's sandbox cannot start; the page is our own file, has no script and
# forbids every fetch. A private profile and HOME keep it off the user's.
browse() {
  local page="$1"
  shift
  HOME="$work/home" timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --hide-scrollbars --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
    "$@" "file://$page"
}

# Pixels within a distance (|dr|+|dg|+|db|) of an RGB colour, from ppmhist's "r g b lum count" lines.
pixels_near() {
  local png="$1" r="$2" g="$3" b="$4" tolerance="$5"
  pngtopnm "$png" | ppmhist -noheader |
    awk -v r="$r" -v g="$g" -v b="$b" -v t="$tolerance" '
      function abs(x) { return x < 0 ? -x : x }
      abs($1 - r) + abs($2 - g) + abs($3 - b) <= t { n += $5 } END { print n + 0 }'
}

# What each plot draws in its own colour, and the least a drawn plot covers.
# A legend swatch is 14x14 pixels; every minimum is well above the swatches.
# Grey is also the colour of antialiased text, so the discards' solid bars are
# matched exactly (a page without plots has ~460 such pixels, the runs' 55,000+).
#   name            r   g   b  tolerance  min pixels
checks=(
  "best-so-far      31 119 180  24   800"   # the step line of both progress plots
  "start           255 127  14  24  5000"   # the per-workload bars and the roofline's open circles
  "best            148 103 189  24  5000"   # the per-workload bars and the roofline's dots
  "roofline        214  39  40  24   600"   # the ceilings
  "decisions       158 158 158   0  5000"   # the discards' bars
)

# Screenshot a page and compare each plot's colours with its minimum; prints the shortfalls.
shortfalls() {
  local page="$1" png="$2"
  browse "$page" --window-size=1400,7000 --screenshot="$png" >/dev/null 2>"$png.stderr" || {
    echo "chromium failed on $page: $(tail -n 5 "$png.stderr")"
    return
  }
  [ -s "$png" ] || { echo "no screenshot of $page"; return; }
  local line name r g b tolerance min n
  for line in "${checks[@]}"; do
    read -r name r g b tolerance min <<<"$line"
    n=$(pixels_near "$png" "$r" "$g" "$b" "$tolerance")
    echo "  $name: $n pixels (at least $min)" >&2
    [ "$n" -ge "$min" ] || echo "$name plot: $n pixels of its colour, fewer than $min"
  done
}

for log in sparse_mla-h200d cuda-cheats-run-1; do
  file="$src/kernels/sparse_mla/results/$log.experiments.jsonl.gz"
  [ -f "$file" ] || { echo "FAIL: no committed run log $file" >&2; fail=1; continue; }
  page="$work/$log.html"
  "$bin" report --format html -o "$page" "$file"
  echo "== $log: $(wc -c <"$page") bytes"

  browse "$page" --dump-dom >"$work/$log.dom" 2>"$work/$log.stderr" || {
    echo "FAIL: chromium could not load $page: $(tail -n 5 "$work/$log.stderr")" >&2
    fail=1
    continue
  }
  if grep -q 'CONSOLE' "$work/$log.stderr"; then
    echo "FAIL: $log: console messages:" >&2
    grep 'CONSOLE' "$work/$log.stderr" >&2
    fail=1
  fi
  svgs=$(grep -o '<svg ' "$work/$log.dom" | wc -l)
  [ "$svgs" -eq 5 ] || { echo "FAIL: $log: the browser's DOM holds $svgs SVG plots, not 5" >&2; fail=1; }
  grep -q '<h2>per-workload winners</h2>' "$work/$log.dom" || { echo "FAIL: $log: no winners section" >&2; fail=1; }

  short=$(shortfalls "$page" "$work/$log.png")
  if [ -n "$short" ]; then
    echo "FAIL: $log: the screenshot $work/$log.png does not show the plots drawn:" >&2
    echo "$short" >&2
    fail=1
  fi
done

# The control: the same page without its plots must fail every plot's check.
sed -e 's/<svg [^>]*>.*<\/svg>//' "$work/sparse_mla-h200d.html" >"$work/control.html"
echo "== control: the H200 page without its plots"
control=$(shortfalls "$work/control.html" "$work/control.png")
if [ "$(grep -c ' plot: ' <<<"$control")" -ne ${#checks[@]} ]; then
  echo "FAIL: a page without plots passed some of the pixel checks: they see nothing" >&2
  echo "$control" >&2
  fail=1
fi

# And a page that tries a fetch must give the console message the check looks for.
sed -e 's|</main>|<img src="http://example.invalid/x.png"></main>|' "$work/sparse_mla-h200d.html" >"$work/fetch.html"
browse "$work/fetch.html" --dump-dom >/dev/null 2>"$work/fetch.stderr" || true
if ! grep -q 'CONSOLE' "$work/fetch.stderr"; then
  echo "FAIL: a page that fetches gave no console message: the console check sees nothing" >&2
  fail=1
fi

[ "$fail" -eq 0 ] && echo "ok: the reports load in $("$chromium" --version 2>/dev/null | head -n 1) with no console message, plots drawn; screenshots in $work"
exit "$fail"
