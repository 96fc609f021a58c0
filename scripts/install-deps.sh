#!/usr/bin/env bash
# Installs the Debian 12 packages TrainScope needs to build, test and run (only the missing ones).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache clang
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6
  libflatbuffers-dev flatbuffers-compiler libserialport-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  xvfb xauth socat fonts-dejavu-core imagemagick dpkg-dev file desktop-file-utils poppler-utils
  appstream
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
