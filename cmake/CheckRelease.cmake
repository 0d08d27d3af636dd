# cmake -DSOURCE_DIR=<repository> -DVERSION=<x.y.z> -P CheckRelease.cmake
# The release's number is written once, in include/fief.h; what repeats it
# for people to read must agree: CHANGELOG.md has the version's section and
# the hello sample's expected output prints it (RELEASING.md lists the steps).
cmake_minimum_required(VERSION 3.24)
file(READ "${SOURCE_DIR}/CHANGELOG.md" changelog)
string(FIND "${changelog}" "\n## [${VERSION}] - " at)
if(at EQUAL -1)
  message(FATAL_ERROR "CHANGELOG.md has no section '## [${VERSION}] - <date>' for fief.h's version")
endif()
file(READ "${SOURCE_DIR}/bindings/c/samples/hello.expected" hello)
if(NOT hello MATCHES "^Fief ${VERSION}\n")
  message(FATAL_ERROR "bindings/c/samples/hello.expected does not print version ${VERSION}")
endif()
message("OK: CHANGELOG.md and the samples name version ${VERSION}")
