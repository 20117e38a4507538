#!/bin/sh
# Installs libgom (static and shared), gom.h, a pkg-config file and a CMake package
# into PREFIX: lib/, include/, lib/pkgconfig/gom.pc, lib/cmake/gom/.
#
#   cargo build --release -p gom-capi
#   crates/gom-capi/package/install.sh PREFIX [LIBDIR]
#
# LIBDIR is where cargo put the libraries (target/release unless given). The installed
# tree is relocatable: move PREFIX anywhere and both pkg-config and find_package(gom)
# still find it.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 PREFIX [LIBDIR]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
crate=$(dirname "$here")
prefix=$1
libdir=${2:-$crate/../../target/release}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$crate/../../Cargo.toml" | head -n 1)
major=${version%%.*}
rest=${version#*.}
minor=${rest%%.*}

libs=""
for lib in libgom.a libgom.so libgom.dylib gom.lib gom.dll.lib; do
  [ -f "$libdir/$lib" ] && libs="$libs $lib"
done
# Checked before anything is written: a wrong LIBDIR leaves PREFIX as it was.
if [ -z "$libs" ]; then
  echo "error: no libgom in $libdir (run: cargo build --release -p gom-capi)" >&2
  exit 1
fi
mkdir -p "$prefix/lib/pkgconfig" "$prefix/lib/cmake/gom" "$prefix/include"
for lib in $libs; do
  cp "$libdir/$lib" "$prefix/lib/"
done
if [ -f "$libdir/gom.dll" ]; then
  mkdir -p "$prefix/bin"
  cp "$libdir/gom.dll" "$prefix/bin/"
fi
cp "$crate/include/gom.h" "$prefix/include/"
sed "s/@VERSION@/$version/" "$here/gom.pc.in" > "$prefix/lib/pkgconfig/gom.pc"
cp "$here/gomConfig.cmake" "$prefix/lib/cmake/gom/"
sed -e "s/@VERSION@/$version/" -e "s/@MAJOR@/$major/" -e "s/@MINOR@/$minor/" \
  "$here/gomConfigVersion.cmake.in" > "$prefix/lib/cmake/gom/gomConfigVersion.cmake"
echo "installed libgom $version into $prefix"
