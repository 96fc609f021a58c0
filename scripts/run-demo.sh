#!/usr/bin/env bash
# Sets up a Debian 12 machine, builds TrainScope (release) and runs the main job on the bundled
# demo model. With a display it opens the app; without one it runs headless.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release > /dev/null
cmake --build --preset release

demo=build/release/resources/demo
cli=build/release/app/cli/trainscope-cli
"$cli" inspect "$demo/demo.circle"
