#!/usr/bin/env bash
# Checks that the layers of ui/ hold (docs/architecture.md):
#   1. no file of the widget-free core (ui/session, ui/report) includes a Qt Widgets header, a
#      QCustomPlot header or anything from ui/widgets or ui/controllers;
#   2. the built trainscope-cli links no Qt Widgets library.
#
#   scripts/check-layers.sh [BUILD_DIR]     (default build/dev)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/dev}"
status=0

widgets_dir="$(find /usr/include -maxdepth 3 -type d -path '*qt6/QtWidgets' 2>/dev/null | head -n 1)"
if [[ -z "$widgets_dir" ]]; then
  echo "check-layers: Qt6 Widgets headers not found (qt6-base-dev)" >&2
  exit 1
fi
# Every header Qt Widgets installs, as an include would name it.
mapfile -t widget_headers < <(ls "$widgets_dir" | grep -E '^Q[A-Za-z]+$|^q[a-z_]+\.h$')
pattern="$(printf '%s|' "${widget_headers[@]}" QtWidgets)"
pattern="${pattern%|}"

while IFS= read -r file; do
  while IFS= read -r line; do
    echo "check-layers: $file includes a widget header: $line" >&2
    status=1
  done < <(grep -nE "^#include [<\"](QtWidgets/)?(${pattern})[>\"]|^#include \"(ui/widgets|ui/controllers)/|qcustomplot" "$root/$file" || true)
done < <(cd "$root" && find ui/session ui/report -name '*.h' -o -name '*.cpp' | sort)

cli="$build/app/cli/trainscope-cli"
if [[ ! -x "$cli" ]]; then
  echo "check-layers: $cli is not built" >&2
  exit 1
fi
if ldd "$cli" | grep -qi 'Qt6Widgets'; then
  echo "check-layers: trainscope-cli links Qt Widgets:" >&2
  ldd "$cli" | grep -i 'Qt6Widgets' >&2
  status=1
fi
[[ $status -eq 0 ]] && echo "check-layers: ui/session and ui/report include no widget header; trainscope-cli links no Qt Widgets"
exit $status
