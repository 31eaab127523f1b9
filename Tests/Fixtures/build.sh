#!/usr/bin/env bash
# Builds the symbolication fixtures from Tests/Fixtures/src into Tests/Fixtures/{macho,elf}.
#
# The outputs are committed (they are small), so tests never need this script; run it (or
# `make fixtures`) after changing a source. It needs the toolchain's clang and swiftc, and from
# Debian: ld64.lld-15 (lld-15), dsymutil-15 and llvm-lipo-15 (llvm-15).
#
#   macho/app-arm64-O0, app-arm64-O2     arm64 iOS 15 executables + .dSYM (DWARF 4)
#   macho/app-x86_64-O2                  x86_64 macOS executable + .dSYM (the second fat slice)
#   macho/app-fat, app-fat.dSYM          universal arm64 + x86_64 executable and its dSYM
#   macho/libshapes-arm64.dylib(.dSYM)   an arm64 iOS dylib (MH_DYLIB) and its dSYM
#   elf/c-dwarf5-O0, c-dwarf5-O2         x86_64 ELF, DWARF 5 (rnglists, addrx, strx, line_str)
#   elf/c-dwarf4-O0, c-dwarf4-O2         x86_64 ELF, DWARF 4 (debug_ranges, v4 line tables)
#   elf/c-dwarf5-O2-zlib                 x86_64 ELF with SHF_COMPRESSED (zlib) debug sections
#   elf/c-dwarf5-O2-stripped + .debug    stripped ELF with .gnu_debuglink, and its debug file
#   elf/swift-O                          a Swift executable (mangled names, Swift DWARF)
#
# The sources are freestanding C/C++ (no SDK headers exist on Linux): no libc, entry at main.
# Debug paths are mapped to /vigil/fixtures so rebuilding anywhere gives the same DWARF.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/src"
export PATH="/opt/swift/usr/bin:$PATH"

for tool in clang swiftc ld64.lld-15 dsymutil-15 llvm-lipo-15 llvm-objcopy-15; do
  command -v "$tool" >/dev/null || { echo "fixtures: $tool is missing (scripts/bootstrap installs lld-15 and llvm-15)" >&2; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$here/macho" "$here/elf"

# Run every compiler from the source folder with relative names, so DW_AT_name is relative and
# DW_AT_comp_dir (mapped) is the directory the line tables resolve against.
common=(-g -ffreestanding -fno-exceptions -fno-rtti -nostdinc++ -fno-stack-protector
        -Iinclude "-fdebug-prefix-map=$src=/vigil/fixtures/src")
sources=(main.c shapes.c geometry.cpp)

compile() { # compile OUTDIR TARGET FLAGS... : every source into OUTDIR/*.o
  local out="$1" target="$2"; shift 2
  mkdir -p "$out"
  for file in "${sources[@]}"; do
    (cd "$src" && clang -target "$target" "${common[@]}" "$@" -c "$file" -o "$out/$file.o")
  done
}

macho() { # macho NAME ARCH TARGET PLATFORM OPT
  local name="$1" arch="$2" target="$3" platform="$4" opt="$5"
  compile "$work/$name" "$target" "$opt" -gdwarf-4
  ld64.lld-15 -arch "$arch" -platform_version "$platform" 15.0 15.0 -e _main \
    "$work/$name"/*.o -o "$work/$name/$name"
  cp "$work/$name/$name" "$here/macho/$name"
  rm -rf "$here/macho/$name.dSYM"
  dsymutil-15 "$here/macho/$name" -o "$here/macho/$name.dSYM"
}

echo "fixtures: Mach-O"
macho app-arm64-O0 arm64 arm64-apple-ios15.0 ios -O0
macho app-arm64-O2 arm64 arm64-apple-ios15.0 ios -O2
macho app-x86_64-O2 x86_64 x86_64-apple-macos15.0 macos -O2

rm -rf "$here/macho/app-fat" "$here/macho/app-fat.dSYM"
llvm-lipo-15 -create "$here/macho/app-arm64-O2" "$here/macho/app-x86_64-O2" -output "$here/macho/app-fat"
mkdir -p "$here/macho/app-fat.dSYM/Contents/Resources/DWARF"
cp "$here/macho/app-arm64-O2.dSYM/Contents/Info.plist" "$here/macho/app-fat.dSYM/Contents/Info.plist"
llvm-lipo-15 -create "$here/macho/app-arm64-O2.dSYM/Contents/Resources/DWARF/app-arm64-O2" \
  "$here/macho/app-x86_64-O2.dSYM/Contents/Resources/DWARF/app-x86_64-O2" \
  -output "$here/macho/app-fat.dSYM/Contents/Resources/DWARF/app-fat"

compile "$work/dylib" arm64-apple-ios15.0 -O2 -gdwarf-4
ld64.lld-15 -arch arm64 -platform_version ios 15.0 15.0 -dylib -install_name @rpath/libshapes.dylib \
  "$work/dylib/shapes.c.o" -o "$here/macho/libshapes-arm64.dylib"
rm -rf "$here/macho/libshapes-arm64.dylib.dSYM"
dsymutil-15 "$here/macho/libshapes-arm64.dylib" -o "$here/macho/libshapes-arm64.dylib.dSYM"

echo "fixtures: ELF"
elf() { # elf NAME OPT DWARF EXTRA...
  local name="$1" opt="$2" dwarf="$3"; shift 3
  compile "$work/$name" x86_64-unknown-linux-gnu "$opt" "-gdwarf-$dwarf" "$@"
  clang -target x86_64-unknown-linux-gnu -fuse-ld=lld -nostdlib -static -Wl,-e,main -Wl,--build-id=sha1 \
    "$@" "$work/$name"/*.o -o "$here/elf/$name"
}
elf c-dwarf5-O0 -O0 5
elf c-dwarf5-O2 -O2 5
elf c-dwarf4-O0 -O0 4
elf c-dwarf4-O2 -O2 4
elf c-dwarf5-O2-zlib -O2 5 -gz=zlib

llvm-objcopy-15 --only-keep-debug "$here/elf/c-dwarf5-O2" "$here/elf/c-dwarf5-O2-stripped.debug"
llvm-objcopy-15 --strip-debug --add-gnu-debuglink="$here/elf/c-dwarf5-O2-stripped.debug" \
  "$here/elf/c-dwarf5-O2" "$here/elf/c-dwarf5-O2-stripped"

echo "fixtures: Swift ELF"
(cd "$src" && swiftc -g -O -parse-as-library -module-name SwiftFixture \
  -debug-prefix-map "$src=/vigil/fixtures/src" swiftapp.swift -o "$work/swift-O")
cp "$work/swift-O" "$here/elf/swift-O"

echo "fixtures: done"
du -sh "$here/macho" "$here/elf"
