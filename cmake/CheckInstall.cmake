# cmake -DBUILD_DIR=<build> -DWORK_DIR=<scratch> -DCC=<cc> -DSAMPLE=<file.c>
#       -DSOURCE_DIR=<repository> -P CheckInstall.cmake
# Installs the build into WORK_DIR/prefix, checks the installed library
# (SONAME, links, stripped, nothing but the C runtime needed), then builds
# SAMPLE against the installed tree twice, as users do: with
# `pkg-config --cflags --libs fief` (and an rpath), and from a CMake project
# using find_package(fief CONFIG); runs both.
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY "${WORK_DIR}")
  message("${what}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

run("install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
file(GLOB_RECURSE pcs "${prefix}/*/fief.pc")
file(GLOB_RECURSE configs "${prefix}/*/fiefConfig.cmake")
file(GLOB_RECURSE libs "${prefix}/*/libfief.so.*.*.*")
file(GLOB_RECURSE hdrs "${prefix}/*/fief.h")
if(NOT pcs OR NOT configs OR NOT libs OR NOT hdrs)
  message(FATAL_ERROR "missing from the install: fief.pc '${pcs}', fiefConfig.cmake '${configs}', libfief.so.X.Y.Z '${libs}', fief.h '${hdrs}'")
endif()
list(GET pcs 0 pc)
get_filename_component(pcdir "${pc}" DIRECTORY)
list(GET libs 0 lib)
get_filename_component(libdir "${lib}" DIRECTORY)
foreach(link libfief.so libfief.so.0)
  if(NOT IS_SYMLINK "${libdir}/${link}" OR NOT EXISTS "${libdir}/${link}")
    message(FATAL_ERROR "${libdir}/${link} is not a link to the library")
  endif()
endforeach()
file(GLOB debug_files "${libdir}/*.debug")
if(debug_files)
  message(FATAL_ERROR "debug information installed by default: ${debug_files}")
endif()

# The library: SONAME with the ABI version, stripped, and needing only the C
# and C++ runtimes (no liblmdb, no Swift runtime).
run("readelf -d" readelf -d "${lib}")
if(NOT output MATCHES "Library soname: \\[libfief\\.so\\.0\\]")
  message(FATAL_ERROR "the SONAME is not libfief.so.0")
endif()
string(REGEX MATCHALL "Shared library: \\[[^]]+\\]" needed "${output}")
foreach(n IN LISTS needed)
  string(REGEX REPLACE "Shared library: \\[([^]]+)\\]" "\\1" n "${n}")
  if(NOT n MATCHES "^(libc|libm|libpthread|libdl|librt|libstdc\\+\\+|libgcc_s|ld-linux[-a-z0-9_]*)\\.so")
    message(FATAL_ERROR "the installed library needs ${n}")
  endif()
endforeach()
run("readelf -S" readelf -S -W "${lib}")
if(output MATCHES "\\.debug_info")
  message(FATAL_ERROR "the installed library is not stripped")
endif()

# pkg-config with nothing but the installed tree.
file(READ "${pc}" pc_text)
if(pc_text MATCHES "lmdb")
  message(FATAL_ERROR "fief.pc still names lmdb")
endif()
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
set(ENV{PKG_CONFIG_LIBDIR} "${pcdir}")
foreach(q --modversion --cflags --libs)
  run("pkg-config ${q} fief" pkg-config ${q} fief)
endforeach()
execute_process(COMMAND pkg-config --cflags --libs fief OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("cc with pkg-config" "${CC}" -std=c99 -Wall -Wextra -o "${WORK_DIR}/sample" "${SAMPLE}" ${flags}
    "-Wl,-rpath,${libdir}")
run("readelf -d sample" readelf -d "${WORK_DIR}/sample")
if(NOT output MATCHES "Shared library: \\[libfief\\.so\\.0\\]")
  message(FATAL_ERROR "the sample does not record libfief.so.0")
endif()
run("the sample built with pkg-config" "${WORK_DIR}/sample")

# find_package(fief CONFIG) from a CMake project of its own.
run("configure the consumer project" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/Tests/InstallConsumer"
    -B "${WORK_DIR}/consumer" "-DCMAKE_PREFIX_PATH=${prefix}" "-DFIEF_SAMPLE=${SAMPLE}"
    "-DCMAKE_C_COMPILER=${CC}")
run("build the consumer project" "${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer")
run("the sample built with find_package" "${WORK_DIR}/consumer/consumer")

file(REMOVE_RECURSE "${WORK_DIR}")
message("OK: the installed tree is usable through pkg-config and find_package(fief CONFIG)")
