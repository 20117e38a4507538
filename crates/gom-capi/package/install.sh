#!/bin/sh
# Installs libgom (static and shared), gom.h, a pkg-config file and a CMake package
# into PREFIX: lib/, include/, lib/pkgconfig/gom.pc, lib/cmake/gom/.
#
# From a checkout:
#   cargo build --release -p gom-capi
#   crates/gom-capi/package/install.sh PREFIX [LIBDIR]
# From an unpacked release archive (gom-capi-<target>.tar.xz, which holds the
# libraries, gom.h and this folder):
#   package/install.sh PREFIX
#
# LIBDIR is where the libraries are: the archive's folder when this script is in one,
# else cargo's target/release. The version is the header's. The installed tree is
# relocatable: move PREFIX anywhere and both pkg-config and find_package(gom) still
# find it.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 PREFIX [LIBDIR]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
crate=$(dirname "$here")
prefix=$1
# A checkout keeps the header in include/; an archive holds it beside the libraries.
header=$crate/include/gom.h
[ -f "$header" ] || header=$crate/gom.h
if [ ! -f "$header" ]; then
  echo "error: no gom.h in $crate/include or $crate" >&2
  exit 1
fi
default_libdir=$crate/../../target/release
for lib in libgom.a gom.lib; do
  [ -f "$crate/$lib" ] && default_libdir=$crate
done
libdir=${2:-$default_libdir}
version_part() {
  sed -n "s/^#define GOM_VERSION_$1 \([0-9][0-9]*\).*/\1/p" "$header" | head -n 1
}
major=$(version_part MAJOR)
minor=$(version_part MINOR)
patch=$(version_part PATCH)
if [ -z "$major" ] || [ -z "$minor" ] || [ -z "$patch" ]; then
  echo "error: $header does not define GOM_VERSION_MAJOR, _MINOR and _PATCH" >&2
  exit 1
fi
version=$major.$minor.$patch

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
cp "$header" "$prefix/include/"
sed "s/@VERSION@/$version/" "$here/gom.pc.in" > "$prefix/lib/pkgconfig/gom.pc"
cp "$here/gomConfig.cmake" "$prefix/lib/cmake/gom/"
sed -e "s/@VERSION@/$version/" -e "s/@MAJOR@/$major/" -e "s/@MINOR@/$minor/" \
  "$here/gomConfigVersion.cmake.in" > "$prefix/lib/cmake/gom/gomConfigVersion.cmake"
echo "installed libgom $version into $prefix"
