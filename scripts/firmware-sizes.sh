#!/usr/bin/env bash
# Flash and static RAM of a TrainScope firmware by part, from its linker map:
#   scripts/firmware-sizes.sh build/cortex-m4/app/firmware/trainscope-firmware-mps2-an386.map
# Flash counts .text, .rodata and the .data image; static RAM counts .data and .bss. Parts: the
# engine, the agent and protocol, the training board, the board layer (startup, UARTs, syscalls),
# the embedded run (model and data), libstdc++, and libc/libm/libgcc (newlib-nano).
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 FIRMWARE.map" >&2; exit 2; }
awk '
  /^Linker script and memory map/ { mapped = 1; next }
  !mapped { next }
  function hex(text,   i, value) {
    value = 0
    text = tolower(substr(text, 3))
    for (i = 1; i <= length(text); ++i) value = value * 16 + index("0123456789abcdef", substr(text, i, 1)) - 1
    return value
  }
  function part(file) {
    if (file ~ /firmware_common\.a\((ram_usage|startup|step_count|syscalls)\./) return "board layer"
    if (file ~ /firmware_common\.a\(/) return "embedded run (model, data)"
    if (file ~ /libtrainscope_(model|kernels|plan|memory|train|exec|core)/ || file ~ /\/engine\//) return "engine"
    if (file ~ /libtrainscope_(agent|protocol)/) return "agent + protocol"
    if (file ~ /libtrainscope_board/) return "training board"
    if (file ~ /app\/firmware/) return "board layer"
    if (file ~ /libstdc\+\+|libsupc\+\+/) return "libstdc++"
    if (file ~ /lib(c|m|g|gcc|c_nano|nosys)[^\/]*\.a|crt|libgcc/) return "libc, libm, libgcc"
    return "other"
  }
  function add(section, size, file,   kind) {
    if (section ~ /^\.(text|rodata|isr_vector|init_array|fini_array|ARM\.exidx|ARM\.extab)/) kind = "flash"
    else if (section ~ /^\.data/) kind = "data"
    else if (section ~ /^\.bss|^COMMON/) kind = "bss"
    else return
    p = part(file); seen[p] = 1
    if (kind == "flash") flash[p] += size
    if (kind == "data") { flash[p] += size; ram[p] += size }
    if (kind == "bss") ram[p] += size
  }
  # " .text.name 0xADDR 0xSIZE file" or " .text.name" then "  0xADDR 0xSIZE file".
  /^ [.A-Za-z_][^ ]* +0x[0-9a-f]+ +0x[0-9a-f]+ / { add($1, hex($3), $4); next }
  /^ [.A-Za-z_][^ ]*$/ { pending = $1; next }
  pending != "" && /^ +0x[0-9a-f]+ +0x[0-9a-f]+ / { add(pending, hex($2), $3); pending = ""; next }
  { pending = "" }
  END {
    printf "%-28s %10s %12s\n", "part", "flash B", "static RAM B"
    for (p in seen) { printf "%-28s %10d %12d\n", p, flash[p], ram[p]; tf += flash[p]; tr += ram[p] }
    printf "%-28s %10d %12d\n", "total", tf, tr
  }
' "$1"
