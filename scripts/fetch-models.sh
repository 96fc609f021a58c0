#!/usr/bin/env bash
# Fetches the third-party models the tests read from the fetched-models cache, checks their
# SHA-256 sums and prepares their inputs for trainscope-cli:
#
#   scripts/fetch-models.sh [--from DIR] [CACHE]
#
# CACHE defaults to $TRAINSCOPE_FETCHED_MODELS_DIR, else ~/.cache/trainscope/models (the default
# of the CMake cache variable TRAINSCOPE_FETCHED_MODELS_DIR). What it holds:
#
#   mnist_lstm/trained_lstm.tflite  tflite-micro's float LSTM example (examples/mnist_lstm), at a
#                                   pinned commit
#   mnist_lstm/sampleN.png          its ten sample images; sampleN shows the digit N
#   mnist_lstm/sampleN.bin          the same image as the model's input for `trainscope-cli run
#                                   --input`: 28 x 28 little-endian float32, the grey value / 255
#                                   row by row (each row one time step of the LSTM)
#
# --from DIR copies the files from a local folder (trained_lstm.tflite and sampleN.png, the PNGs
# directly in DIR or in DIR/samples) instead of downloading them; the sums are checked all the
# same. Needs curl (unless --from), sha256sum, ImageMagick's convert and python3.
set -euo pipefail

die() { echo "fetch-models: $*" >&2; exit 2; }

from=""
cache="${TRAINSCOPE_FETCHED_MODELS_DIR:-$HOME/.cache/trainscope/models}"
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a DIR"; from="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *) cache="$1"; shift ;;
  esac
done

commit="90b983c2b3f1480642e040bbd2ddb37b998f3424"
base="https://raw.githubusercontent.com/tensorflow/tflite-micro/$commit/tensorflow/lite/micro/examples/mnist_lstm"

# name, path in the example, sha256
files=(
  "trained_lstm.tflite trained_lstm.tflite 479430996e6d6fce4d2fcd2e370af939918e743bc9a7c90907f09e8bafa59658"
  "sample0.png samples/sample0.png d7e589381b51c3aee74517724f3d8e40cec0b5c810567703736f5ddb7ea2ca3d"
  "sample1.png samples/sample1.png 33bf13128fd13c23190fa297e80abc6e5bc3e4c7bb291fa1fd31894aeea185ae"
  "sample2.png samples/sample2.png 72363b408e0f318c0d2db8c663a49efff6358d2e770eb3201e298d9f7b5b0d48"
  "sample3.png samples/sample3.png b64608b54865acecbe635c4ebf8e7efb60c83ff611d5a889fdd9ebe42b24eb30"
  "sample4.png samples/sample4.png 9c4ef669be5ea4172faca47eb7352f6da4dc750635a477bb4dec8c42b8e74a24"
  "sample5.png samples/sample5.png 6dbbeb19a78bda7d93a68873b67b2b839491371ba207857af311ab177aae5e93"
  "sample6.png samples/sample6.png de821203aac9ecd8f9c551ae1999dd08b206828dc2a432838faafeae346bb1b0"
  "sample7.png samples/sample7.png 4765a6a3323bab81763ab13ad5f0370ddc653ba00dc3f817f1e7f7a0ae8f2d9d"
  "sample8.png samples/sample8.png 241d04dcc2a6cf5f1c8610dc8877e0c4e22e42f2572f8e43716b74c75becfb86"
  "sample9.png samples/sample9.png 958ece5dc38620a377090eb5a57fbae68b1cd2beee5e9eea3995cbfed694566c"
)

for tool in sha256sum convert python3; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done
[ -n "$from" ] || command -v curl >/dev/null || die "curl is not installed (or use --from DIR)"

dest="$cache/mnist_lstm"
mkdir -p "$dest"
for entry in "${files[@]}"; do
  read -r name path sum <<<"$entry"
  target="$dest/$name"
  if [ -f "$target" ] && echo "$sum  $target" | sha256sum --check --status; then
    continue
  fi
  partial="$target.partial"
  if [ -n "$from" ]; then
    source="$from/$path"
    [ -f "$source" ] || source="$from/$name"
    [ -f "$source" ] || die "neither $from/$path nor $from/$name exists"
    cp "$source" "$partial"
  else
    echo "fetch-models: downloading $base/$path" >&2
    curl --fail --silent --show-error --location --output "$partial" "$base/$path" ||
      { rm -f "$partial"; die "could not download $base/$path"; }
  fi
  if ! echo "$sum  $partial" | sha256sum --check --status; then
    rm -f "$partial"
    die "$name: SHA-256 differs from the pinned $sum"
  fi
  mv "$partial" "$target"
done

# The images as the model's input: 8-bit grey pixels, each divided by 255 and stored as float32.
for digit in 0 1 2 3 4 5 6 7 8 9; do
  png="$dest/sample$digit.png"
  bin="$dest/sample$digit.bin"
  size="$(convert "$png" -format '%w x %h' info:)"
  [ "$size" = "28 x 28" ] || die "$png is $size pixels, expected 28 x 28"
  convert "$png" -colorspace Gray -depth 8 gray:- |
    python3 -c '
import struct, sys
pixels = sys.stdin.buffer.read()
if len(pixels) != 28 * 28:
    sys.exit("expected 784 pixels, got %d" % len(pixels))
sys.stdout.buffer.write(struct.pack("<784f", *(p / 255.0 for p in pixels)))
' >"$bin.partial"
  mv "$bin.partial" "$bin"
done
echo "fetch-models: $dest holds trained_lstm.tflite and sample0..9 (.png, .bin)"
