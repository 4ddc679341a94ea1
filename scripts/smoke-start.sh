#!/usr/bin/env bash
# CI step: `npm start` on a fresh clone, then the README's "Try it" commands until `crear` answers
# 200 with an invoice, then SIGINT — proving the first command of the README works from the
# repository alone. Needs a clone without ./data (the README's commands read data/demo-keys.json).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -e data ]; then
  echo "smoke-start: ./data exists; run this on a fresh clone" >&2
  exit 1
fi
log="$(mktemp)"
setsid npm start >"$log" 2>&1 &
pid=$!
stop() { kill -INT -- "-$pid" 2>/dev/null || true; }
trap stop EXIT

for _ in $(seq 1 240); do
  grep -qx READY "$log" && break
  if ! kill -0 "$pid" 2>/dev/null; then cat "$log" >&2; echo "smoke-start: npm start exited early" >&2; exit 1; fi
  sleep 0.5
done
grep -qx READY "$log" || { cat "$log" >&2; echo "smoke-start: npm start never printed READY" >&2; exit 1; }
cat "$log"

# The README's "Try it" block, run as written.
try_it="$(awk '/^Try it:/{f=1;next} f&&/^```sh/{b=1;next} b&&/^```/{exit} b{print}' README.md)"
[ -n "$try_it" ] || { echo "smoke-start: no 'Try it' block in README.md" >&2; exit 1; }
out="$(bash -euo pipefail -c "$try_it")"
echo "$out"
echo "$out" | grep -q '"idFactura"' || { echo "smoke-start: crear did not answer with an invoice" >&2; exit 1; }

trap - EXIT
kill -INT -- "-$pid"
for _ in $(seq 1 60); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
if kill -0 "$pid" 2>/dev/null; then echo "smoke-start: npm start did not stop on SIGINT" >&2; kill -KILL -- "-$pid"; exit 1; fi
echo "smoke-start: OK"
