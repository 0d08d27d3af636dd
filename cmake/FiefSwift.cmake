# Builds libfief.so from the Swift sources (Sources/FiefEngine, Sources/FiefC,
# module maps in Sources/CLMDB and Sources/CFief) by driving SwiftPM, so the
# library is exactly the `fief` product of Package.swift, built release (-O)
# with the Swift standard library linked statically (-static-stdlib): at
# runtime it needs only libc, libstdc++ and liblmdb.
#
# Defines:
#   FIEF_LIBRARY   the path of the built libfief.so (in <build>/lib)
#   fief_swift     the custom target that builds it
#   fief, fief::fief  an imported SHARED library target (include/ as its
#                  include directory) for C/C++ consumers in this build.

find_program(FIEF_SWIFT_EXECUTABLE swift REQUIRED
             HINTS /opt/swift/usr/bin ENV SWIFT_PATH
             DOC "The Swift driver (swift build)")
set(FIEF_SWIFT_JOBS "" CACHE STRING "Parallel jobs for swift build (empty: SwiftPM default)")
set(FIEF_SWIFT_EXTRA_FLAGS "" CACHE STRING "Extra arguments for swift build (a ;-list)")

set(FIEF_SWIFTPM_SCRATCH "${CMAKE_BINARY_DIR}/swiftpm")
set(FIEF_LIBRARY "${CMAKE_BINARY_DIR}/lib/libfief.so")

# Every input of the product: re-globbed at build time (CONFIGURE_DEPENDS) so
# added or removed Swift files are noticed, and listed as DEPENDS so an edit
# of any of them rebuilds the library.
file(GLOB_RECURSE _fief_swift_inputs CONFIGURE_DEPENDS
     "${CMAKE_SOURCE_DIR}/Sources/FiefEngine/*.swift"
     "${CMAKE_SOURCE_DIR}/Sources/FiefC/*.swift"
     "${CMAKE_SOURCE_DIR}/ThirdParty/lmdb/*"
     "${CMAKE_SOURCE_DIR}/Sources/CFiefSupport/*"
     "${CMAKE_SOURCE_DIR}/Sources/CFief/*")
list(APPEND _fief_swift_inputs
     "${CMAKE_SOURCE_DIR}/Package.swift"
     "${CMAKE_SOURCE_DIR}/include/fief.h")

set(_fief_swift_args
    build -c release --product fiefc
    --package-path "${CMAKE_SOURCE_DIR}"
    --scratch-path "${FIEF_SWIFTPM_SCRATCH}"
    -Xswiftc -static-stdlib
    # The C library is one unit: let the optimizer inline the engine into
    # the @_cdecl layer, and drop run-time exclusivity checks (the engine
    # serialises access itself; the Swift test suites keep the checks on).
    -Xswiftc -cross-module-optimization
    -Xswiftc -enforce-exclusivity=unchecked
    # A SONAME, so programs linked against the library record "libfief.so"
    # rather than the path it had at link time.
    -Xlinker -soname=libfief.so)
if(FIEF_SWIFT_JOBS)
  list(APPEND _fief_swift_args -j ${FIEF_SWIFT_JOBS})
endif()
list(APPEND _fief_swift_args ${FIEF_SWIFT_EXTRA_FLAGS})

add_custom_command(
  OUTPUT "${FIEF_LIBRARY}"
  COMMAND "${FIEF_SWIFT_EXECUTABLE}" ${_fief_swift_args}
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_BINARY_DIR}/lib"
  COMMAND "${CMAKE_COMMAND}" -E copy "${FIEF_SWIFTPM_SCRATCH}/release/libfiefc.so" "${FIEF_LIBRARY}"
  COMMAND "${CMAKE_COMMAND}" -E touch "${FIEF_LIBRARY}"
  DEPENDS ${_fief_swift_inputs}
  WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}"
  USES_TERMINAL
  VERBATIM
  COMMENT "Building libfief.so with SwiftPM (release, static Swift stdlib)")
add_custom_target(fief_swift ALL DEPENDS "${FIEF_LIBRARY}")

add_library(fief SHARED IMPORTED GLOBAL)
add_library(fief::fief ALIAS fief)
set_target_properties(fief PROPERTIES
  IMPORTED_LOCATION "${FIEF_LIBRARY}"
  IMPORTED_SONAME "libfief.so"
  INTERFACE_INCLUDE_DIRECTORIES "${CMAKE_SOURCE_DIR}/include")
add_dependencies(fief fief_swift)

# For work on a header ahead of the library: every function of fief.h
# declared weak (a generated header that consumers in this build
# force-include), so tests link even if the library lacks a function, and a
# call to a missing one crashes only the test that makes it.  Off by default:
# the library exports every function (the lib_exports test checks it).
option(FIEF_ALLOW_MISSING_SYMBOLS "Link tests and samples even if libfief.so lacks functions" OFF)
if(FIEF_ALLOW_MISSING_SYMBOLS)
  file(READ "${CMAKE_SOURCE_DIR}/include/fief.h" _fief_h)
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" _fief_h "${_fief_h}")
  string(REGEX MATCHALL "FIEF_API[^;(#]*[ *\t\n](fief_[A-Za-z0-9_]+)[ \t\n]*\\(" _decls "${_fief_h}")
  set(_weak "/* Generated from include/fief.h: every function weak (FIEF_ALLOW_MISSING_SYMBOLS). */\n")
  string(APPEND _weak "#include \"fief.h\"\n")
  foreach(_d IN LISTS _decls)
    string(REGEX REPLACE ".*[ *\t\n](fief_[A-Za-z0-9_]+)[ \t\n]*\\($" "\\1" _n "${_d}")
    string(APPEND _weak "#pragma weak ${_n}\n")
  endforeach()
  file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/generated/fief_weak.h" CONTENT "${_weak}")
  set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               "${CMAKE_SOURCE_DIR}/include/fief.h")
  set_property(TARGET fief APPEND PROPERTY INTERFACE_COMPILE_OPTIONS
               "SHELL:-include ${CMAKE_BINARY_DIR}/generated/fief_weak.h")
  # Weak references alone do not make a library "needed" under --as-needed.
  set_property(TARGET fief APPEND PROPERTY INTERFACE_LINK_OPTIONS "LINKER:--no-as-needed")
endif()
