#!/usr/bin/env bash
# Builds the symbolication fixtures from Tests/Fixtures/src into Tests/Fixtures/{macho,elf}.
#
# The outputs are committed (they are small), so tests never need this script; run it (or
# `make fixtures`) after changing a source. Rebuilding is deterministic, but the committed
# Mach-O and ELF files come from an earlier build of the same sources with other UUIDs and build
# ids, which tests outside VigilSymbols name (VigilServerTests); update those when rebuilding. It needs the toolchain's clang and swiftc, and from
# Debian: ld64.lld-15 (lld-15), dsymutil-15 and llvm-lipo-15 (llvm-15).
#
#   macho/app-arm64-O0, app-arm64-O2     arm64 iOS 15 executables + .dSYM (DWARF 4)
#   macho/app-x86_64-O2                  x86_64 macOS executable + .dSYM (the second fat slice)
#   macho/app-arm64-O0-dwarf5            arm64 iOS executable + .dSYM with DWARF 5 units
#   macho/app-fat, app-fat.dSYM          universal arm64 + x86_64 executable and its dSYM
#   macho/libshapes-arm64.dylib(.dSYM)   an arm64 iOS dylib (MH_DYLIB) and its dSYM
#   elf/c-dwarf5-O0, c-dwarf5-O2         x86_64 ELF, DWARF 5 (rnglists, addrx, strx, line_str)
#   elf/c-dwarf4-O0, c-dwarf4-O2         x86_64 ELF, DWARF 4 (debug_ranges, v4 line tables)
#   elf/c-dwarf5-O2-zlib                 x86_64 ELF with SHF_COMPRESSED (zlib) debug sections
#   elf/c-dwarf5-O2-zstd                 c-dwarf5-O2 with SHF_COMPRESSED zstd debug sections (GNU objcopy
#                                        2.40's --compress-debug-sections=zstd, what GCC 13 writes)
#   elf/c-dwarf5-O2-stripped + .debug    stripped ELF with .gnu_debuglink, and its debug file
#   elf/swift-O                          a Swift executable (mangled names, Swift DWARF)
#   ../../Fuzz/Corpus/Fuzz{ObjectMachO,ObjectELF,DWARF,SymCache,Demangler}/   fuzz seeds from these
#
# The sources are freestanding C/C++ (no SDK headers exist on Linux): no libc, entry at main.
# Debug paths are mapped to /vigil/fixtures so rebuilding anywhere gives the same DWARF.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/src"
export PATH="/opt/swift/usr/bin:$PATH"

for tool in clang swiftc ld64.lld-15 dsymutil-15 llvm-lipo-15 llvm-objcopy-15 objcopy; do
  command -v "$tool" >/dev/null || { echo "fixtures: $tool is missing (scripts/bootstrap installs lld-15 and llvm-15)" >&2; exit 1; }
done

# A fixed work directory and zero object timestamps: the executables' debug maps (N_OSO) record
# object paths and mtimes, which feed the linker's UUID, so rebuilding gives the same bytes.
work=/tmp/vigil-fixtures-build
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
export ZERO_AR_DATE=1
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

macho() { # macho NAME ARCH TARGET PLATFORM OPT [DWARF]
  local name="$1" arch="$2" target="$3" platform="$4" opt="$5" dwarf="${6:-4}"
  compile "$work/$name" "$target" "$opt" "-gdwarf-$dwarf"
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
# DWARF 5 as dsymutil-15 links it (it cannot link DWARF 5 range lists, so -O0 only; it also
# rewrites strx/addrx forms): a dSYM whose units declare DWARF 5 with Apple's section names.
macho app-arm64-O0-dwarf5 arm64 arm64-apple-ios15.0 ios -O0 5 2>/dev/null

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
# LLVM 15 cannot write zstd sections; GNU binutils 2.40 (Debian 12) can.
objcopy --compress-debug-sections=zstd "$here/elf/c-dwarf5-O2" "$here/elf/c-dwarf5-O2-zstd"

llvm-objcopy-15 --only-keep-debug "$here/elf/c-dwarf5-O2" "$here/elf/c-dwarf5-O2-stripped.debug"
llvm-objcopy-15 --strip-debug --add-gnu-debuglink="$here/elf/c-dwarf5-O2-stripped.debug" \
  "$here/elf/c-dwarf5-O2" "$here/elf/c-dwarf5-O2-stripped"

echo "fixtures: Swift ELF"
# Compile and link separately, so no driver temporary path ends up in the binary.
(cd "$src" && swiftc -g -O -parse-as-library -module-name SwiftFixture -module-cache-path "$work/module-cache" \
  -debug-prefix-map "$src=/vigil/fixtures/src" -debug-prefix-map "$work=/vigil/fixtures/build" \
  -c swiftapp.swift -o "$work/swiftapp.o")
swiftc "$work/swiftapp.o" -o "$work/swift-O" -Xlinker --build-id=sha1
cp "$work/swift-O" "$here/elf/swift-O"


# Seeds for the fuzz targets (Fuzz/Corpus/<target>), from the fixtures just built.
echo "fixtures: fuzz seeds"
corpus="$here/../../Fuzz/Corpus"
mkdir -p "$corpus"/{FuzzObjectMachO,FuzzObjectELF,FuzzDWARF,FuzzSymCache,FuzzDemangler}
cp "$here/macho/app-arm64-O2.dSYM/Contents/Resources/DWARF/app-arm64-O2" "$corpus/FuzzObjectMachO/dsym-arm64"
cp "$here/macho/libshapes-arm64.dylib.dSYM/Contents/Resources/DWARF/libshapes-arm64.dylib" "$corpus/FuzzObjectMachO/dsym-dylib"
cp "$here/macho/app-x86_64-O2" "$corpus/FuzzObjectMachO/exe-x86_64"
cp "$here/macho/app-fat.dSYM/Contents/Resources/DWARF/app-fat" "$corpus/FuzzObjectMachO/dsym-fat"
for name in c-dwarf5-O2 c-dwarf4-O0 c-dwarf5-O2-zlib c-dwarf5-O2-zstd c-dwarf5-O2-stripped; do cp "$here/elf/$name" "$corpus/FuzzObjectELF/$name"; done
# zstd seeds: the compressed .debug_info and .debug_line sections of the zstd fixture, header included.
mkdir -p "$corpus/FuzzZstdSection"
python3 - "$here/elf/c-dwarf5-O2-zstd" "$corpus/FuzzZstdSection" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
def header(i):
    return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
names = header(shstrndx)
for i in range(shnum):
    h = header(i)
    name = data[names[4] + h[0]:].split(b"\0", 1)[0].decode()
    if name in (".debug_info", ".debug_line") and h[2] & 0x800:
        open(f"{sys.argv[2]}/{name.strip('.')}", "wb").write(data[h[4]:h[4] + h[5]])
PY
# DWARF seeds: 20 bytes of section lengths (u16 LE each), then the sections, in FuzzDWARF's order.
for name in c-dwarf5-O2 c-dwarf4-O2 c-dwarf5-O0; do
  python3 - "$here/elf/$name" "$corpus/FuzzDWARF/$name" <<'PY'
import struct, subprocess, sys, tempfile, os
source, target = sys.argv[1], sys.argv[2]
names = [".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_ranges",
         ".debug_rnglists", ".debug_addr", ".debug_str_offsets", ".debug_line_str", ".debug_aranges"]
blobs = []
with tempfile.TemporaryDirectory() as work:
    for name in names:
        path = os.path.join(work, name.strip("."))
        result = subprocess.run(["llvm-objcopy-15", "--dump-section", f"{name}={path}", source, os.path.join(work, "out")],
                                capture_output=True)
        blobs.append(open(path, "rb").read() if result.returncode == 0 and os.path.exists(path) else b"")
with open(target, "wb") as out:
    out.write(b"".join(struct.pack("<H", min(len(b), 65535)) for b in blobs))
    out.write(b"".join(b[:65535] for b in blobs))
PY
done
vigil="$here/../../.build/debug/vigil"
if [[ -x "$vigil" ]]; then
  "$vigil" symcache build "$here/elf/c-dwarf5-O2" -o "$corpus/FuzzSymCache/c-dwarf5-O2.symcache" >/dev/null
  "$vigil" symcache build "$here/macho/app-arm64-O2.dSYM" -o "$corpus/FuzzSymCache/app-arm64-O2.symcache" >/dev/null
else
  echo "fixtures: build vigil (swift build) to refresh the SymCache fuzz seeds"
fi
printf '%s' '$s12SwiftFixture11AccumulatorC3addySiSaySiGF' > "$corpus/FuzzDemangler/swift-method"
printf '%s' '$s4Shop4CartC3addyyAA4ItemVFyycfU_TA' > "$corpus/FuzzDemangler/swift-closure"
printf '%s' '_ZN7fixture8geometry4RingIiLi8EE4foldIZ9cpp_entryE3$_0EEiiT_' > "$corpus/FuzzDemangler/cxx-template"
printf '%s' 'generic specialization <Swift.Int> of static (extension in Foo):Swift.Array< where A: Swift.Equatable>.< infix(A, A) -> Swift.Bool' > "$corpus/FuzzDemangler/demangled-text"

echo "fixtures: done"
du -sh "$here/macho" "$here/elf" "$corpus"
