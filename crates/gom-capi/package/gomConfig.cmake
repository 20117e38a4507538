# find_package(gom) for an installed libgom, relocatable: this file sits at
# <prefix>/lib/cmake/gom/gomConfig.cmake, and everything else is found from it.
#
# Targets:
#   gom::gom_static  libgom.a (gom.lib on Windows): a Rust static library, linked
#                    with the threads, dl and math libraries it needs
#   gom::gom_shared  libgom.so / libgom.dylib / gom.dll, when installed
#   gom::gom         the shared library when installed, else the static one
include(CMakeFindDependencyMacro)
find_dependency(Threads)

get_filename_component(_gom_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET gom::gom_static)
  add_library(gom::gom_static STATIC IMPORTED)
  if(WIN32)
    set(_gom_static "${_gom_prefix}/lib/gom.lib")
    set(_gom_system_libs ws2_32 userenv ntdll bcrypt)
  else()
    set(_gom_static "${_gom_prefix}/lib/libgom.a")
    set(_gom_system_libs Threads::Threads ${CMAKE_DL_LIBS} m)
  endif()
  set_target_properties(gom::gom_static PROPERTIES
    IMPORTED_LOCATION "${_gom_static}"
    INTERFACE_INCLUDE_DIRECTORIES "${_gom_prefix}/include"
    INTERFACE_LINK_LIBRARIES "${_gom_system_libs}")

  if(WIN32)
    set(_gom_shared "${_gom_prefix}/bin/gom.dll")
    set(_gom_implib "${_gom_prefix}/lib/gom.dll.lib")
  elseif(APPLE)
    set(_gom_shared "${_gom_prefix}/lib/libgom.dylib")
  else()
    set(_gom_shared "${_gom_prefix}/lib/libgom.so")
  endif()
  if(EXISTS "${_gom_shared}")
    add_library(gom::gom_shared SHARED IMPORTED)
    set_target_properties(gom::gom_shared PROPERTIES
      IMPORTED_LOCATION "${_gom_shared}"
      INTERFACE_INCLUDE_DIRECTORIES "${_gom_prefix}/include")
    if(WIN32)
      set_target_properties(gom::gom_shared PROPERTIES IMPORTED_IMPLIB "${_gom_implib}")
    endif()
    add_library(gom::gom INTERFACE IMPORTED)
    set_target_properties(gom::gom PROPERTIES INTERFACE_LINK_LIBRARIES gom::gom_shared)
  else()
    add_library(gom::gom INTERFACE IMPORTED)
    set_target_properties(gom::gom PROPERTIES INTERFACE_LINK_LIBRARIES gom::gom_static)
  endif()
endif()

unset(_gom_prefix)
unset(_gom_static)
unset(_gom_shared)
unset(_gom_implib)
unset(_gom_system_libs)
