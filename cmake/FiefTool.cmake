# Builds the `fief` command-line tool (SwiftPM product `fief`) in release mode
# with the Swift standard library and Foundation linked statically, installs
# it as `bin/fief`, and tests it (demo, schema, dump, info).
#
# Defines: FIEF_TOOL (the built executable), target fief_tool.

set(FIEF_TOOL_SCRATCH "${CMAKE_BINARY_DIR}/swiftpm-tool")
set(FIEF_TOOL "${CMAKE_BINARY_DIR}/bin/fief")

file(GLOB_RECURSE _fief_tool_inputs CONFIGURE_DEPENDS
     "${CMAKE_SOURCE_DIR}/Sources/*.swift"
     "${CMAKE_SOURCE_DIR}/ThirdParty/lmdb/*"
     "${CMAKE_SOURCE_DIR}/Sources/CFief/*")
list(APPEND _fief_tool_inputs "${CMAKE_SOURCE_DIR}/Package.swift" "${CMAKE_SOURCE_DIR}/include/fief.h")

add_custom_command(
  OUTPUT "${FIEF_TOOL}"
  # LMDB compiled as in the library (cmake/FiefSwift.cmake, Package.swift's lmdbSettings).
  COMMAND "${CMAKE_COMMAND}" -E env FIEF_LMDB_BRANCHES=1 "${FIEF_SWIFT_EXECUTABLE}" build -c release --product fief
          --package-path "${CMAKE_SOURCE_DIR}" --scratch-path "${FIEF_TOOL_SCRATCH}"
          --static-swift-stdlib
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_BINARY_DIR}/bin"
  # Stripped, with its debug information beside it (bin/fief.debug).
  COMMAND "${FIEF_OBJCOPY}" --only-keep-debug "${FIEF_TOOL_SCRATCH}/release/fief" "${FIEF_TOOL}.debug"
  COMMAND "${FIEF_OBJCOPY}" --strip-all --add-gnu-debuglink=${FIEF_TOOL}.debug
          "${FIEF_TOOL_SCRATCH}/release/fief" "${FIEF_TOOL}"
  DEPENDS ${_fief_tool_inputs}
  WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}"
  USES_TERMINAL
  VERBATIM
  COMMENT "Building the fief tool with SwiftPM (release, static Swift runtime)")
add_custom_target(fief_tool ALL DEPENDS "${FIEF_TOOL}")

install(PROGRAMS "${FIEF_TOOL}" TYPE BIN COMPONENT runtime)
install(FILES "${FIEF_TOOL}.debug" TYPE BIN COMPONENT debug EXCLUDE_FROM_ALL)

if(FIEF_BUILD_TESTS)
  set(_demo "${CMAKE_BINARY_DIR}/tool-test/demo.fief")
  add_test(NAME tool.demo COMMAND "${FIEF_TOOL}" demo --force "${_demo}")
  set_tests_properties(tool.demo PROPERTIES
    FIXTURES_SETUP fief_tool_demo
    PASS_REGULAR_EXPRESSION "committed 6 dogs, 3 people, 1 toy.*live 5, frozen snapshot 6")
  add_test(NAME tool.schema COMMAND "${FIEF_TOOL}" schema "${_demo}")
  set_tests_properties(tool.schema PROPERTIES FIXTURES_REQUIRED fief_tool_demo
    PASS_REGULAR_EXPRESSION "class Person \\{.*id: int  \\[primary key\\]")
  add_test(NAME tool.dump COMMAND "${FIEF_TOOL}" dump "${_demo}" Dog)
  set_tests_properties(tool.dump PROPERTIES FIXTURES_REQUIRED fief_tool_demo
    PASS_REGULAR_EXPRESSION "\"name\": \"Bella\", \"age\": \\{\"\\$numberLong\": \"1\"\\}, \"color\": \"black\", \"currentCity\": \"Porto\"\\}")
  add_test(NAME tool.info COMMAND "${FIEF_TOOL}" info "${_demo}")
  set_tests_properties(tool.info PROPERTIES FIXTURES_REQUIRED fief_tool_demo
    PASS_REGULAR_EXPRESSION "class    Dog: 5 objects, 4 properties")
  add_test(NAME tool.verify COMMAND "${FIEF_TOOL}" verify "${_demo}")
  set_tests_properties(tool.verify PROPERTIES FIXTURES_REQUIRED fief_tool_demo
    PASS_REGULAR_EXPRESSION "class 'Dog': 5 objects.*demo.fief: no damage found")
  # copy, then the copy verifies and reads the same.
  set(_copy "${CMAKE_BINARY_DIR}/tool-test/copy.fief")
  add_test(NAME tool.copy
           COMMAND sh -c "rm -f '${_copy}' '${_copy}-lock' && '${FIEF_TOOL}' copy '${_demo}' '${_copy}' && '${FIEF_TOOL}' verify '${_copy}' && '${FIEF_TOOL}' dump '${_copy}' Dog")
  set_tests_properties(tool.copy PROPERTIES FIXTURES_REQUIRED fief_tool_demo
    PASS_REGULAR_EXPRESSION "class 'Dog': 5 objects copied.*copy.fief: no damage found.*\"name\": \"Bella\", \"age\": \\{\"\\$numberLong\": \"1\"\\}")
  # dump | import into a new file | dump: the same objects (the demo has no
  # links; its deleted dog leaves a gap in the keys, so keys are left out).
  set(_rt "${CMAKE_BINARY_DIR}/tool-test/roundtrip")
  add_test(NAME tool.dump_import
           COMMAND sh -c "rm -rf '${_rt}' && mkdir -p '${_rt}' && cd '${_rt}' && '${FIEF_TOOL}' dump '${_demo}' > first.jsonl && '${FIEF_TOOL}' import new.fief < first.jsonl && '${FIEF_TOOL}' dump new.fief > second.jsonl && '${CMAKE_COMMAND}' -DFIRST=first.jsonl -DSECOND=second.jsonl -P '${CMAKE_SOURCE_DIR}/cmake/CompareDumps.cmake' && echo round trip identical")
  set_tests_properties(tool.dump_import PROPERTIES FIXTURES_REQUIRED fief_tool_demo
    PASS_REGULAR_EXPRESSION "class 'Dog': 5 objects imported.*new.fief: 9 objects imported.*round trip identical")
  # A bad line: exit status 1, its number, and no file left behind.
  add_test(NAME tool.import_bad_line
           COMMAND sh -c "cd '${CMAKE_BINARY_DIR}/tool-test' && rm -f bad.fief && '${FIEF_TOOL}' dump '${_demo}' | sed '3s/.*/{oops/' | '${FIEF_TOOL}' import bad.fief; echo status $?; test ! -e bad.fief && echo no file")
  set_tests_properties(tool.import_bad_line PROPERTIES FIXTURES_REQUIRED fief_tool_demo
    PASS_REGULAR_EXPRESSION "fief: line 3: JSON syntax error at column 2: expected a string key.*status 1.*no file")
  add_test(NAME tool.copy_refuses_existing COMMAND "${FIEF_TOOL}" copy "${_demo}" "${_demo}")
  set_tests_properties(tool.copy_refuses_existing PROPERTIES FIXTURES_REQUIRED fief_tool_demo
    PASS_REGULAR_EXPRESSION "already exists")
  # Files of the older formats (committed fixtures): copied into the current format.
  foreach(_format 1 2 3)
    set(_old "${CMAKE_BINARY_DIR}/tool-test/format${_format}.fief")
    set(_old_copy "${CMAKE_BINARY_DIR}/tool-test/format${_format}-copy.fief")
    set(_old_fixture "${CMAKE_SOURCE_DIR}/bindings/python/tests/data/format${_format}.fief")
    add_test(NAME tool.copy_format${_format}
             COMMAND sh -c "rm -f '${_old_copy}' '${_old_copy}-lock' '${_old}-lock' && cp '${_old_fixture}' '${_old}' && '${FIEF_TOOL}' verify '${_old}' && '${FIEF_TOOL}' copy '${_old}' '${_old_copy}' && '${FIEF_TOOL}' verify '${_old_copy}' && '${FIEF_TOOL}' info '${_old_copy}'")
    set_tests_properties(tool.copy_format${_format} PROPERTIES
      PASS_REGULAR_EXPRESSION "file format ${_format}: opening the file for writing upgrades it.*class 'Item': 600 objects copied.*format 10, version 2.*no damage found.*class    Item: 600 objects")
  endforeach()
  # Format 5 with a stale full-text index and sets holding equal numbers apart
  # (Tests/CAPI/format5_data.h): verify finds no damage and says what the
  # upgrade repairs; copy writes format 10 with the index rebuilt and the
  # numbers merged, which verify finds sound.
  set(_f5 "${CMAKE_BINARY_DIR}/tool-test/format5.fief")
  set(_f5_copy "${CMAKE_BINARY_DIR}/tool-test/format5-copy.fief")
  add_test(NAME tool.copy_format5
           COMMAND sh -c "rm -f '${_f5_copy}' '${_f5_copy}-lock' '${_f5}-lock' && cp '${CMAKE_SOURCE_DIR}/Tests/CAPI/data/format5_fulltext_sets.fief' '${_f5}' && '${FIEF_TOOL}' verify '${_f5}' && '${FIEF_TOOL}' copy '${_f5}' '${_f5_copy}' && '${FIEF_TOOL}' verify '${_f5_copy}'")
  set_tests_properties(tool.copy_format5 PROPERTIES
    PASS_REGULAR_EXPRESSION "file format 5: opening the file for writing upgrades it to format 10.*full-text index of 'text'.*stale.*set 'values'.*6 numbers keyed in format 5's form.*format5.fief: no damage found.*set 'values'.*6 numbers keyed in format 5's form stored under format 10's key, 5 of them merged.*format 10, version 2.*set 'values': 6 sets, 12 entries.*format5-copy.fief: no damage found")
  # A file that is not a realm: refused (exit status 1), and no lock file is left beside it.
  file(WRITE "${CMAKE_BINARY_DIR}/tool-test/not-a-realm.txt" "plain text, not a realm\n")
  add_test(NAME tool.bad_file COMMAND "${FIEF_TOOL}" info "${CMAKE_BINARY_DIR}/tool-test/not-a-realm.txt")
  set_tests_properties(tool.bad_file PROPERTIES PASS_REGULAR_EXPRESSION "not a Fief file")
  add_test(NAME tool.bad_file_leaves_no_lock
           COMMAND "${CMAKE_COMMAND}" -E rm "${CMAKE_BINARY_DIR}/tool-test/not-a-realm.txt-lock")
  set_tests_properties(tool.bad_file_leaves_no_lock PROPERTIES DEPENDS tool.bad_file WILL_FAIL TRUE)
endif()
