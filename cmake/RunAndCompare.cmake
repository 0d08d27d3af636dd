# cmake -DPROGRAM=<exe> -DEXPECTED=<file> -DWORK_DIR=<dir> [-DARGS=a;b] -P RunAndCompare.cmake
# Runs PROGRAM in a fresh WORK_DIR and compares its standard output with the
# EXPECTED file; fails on a non-zero exit or any difference.
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(COMMAND "${PROGRAM}" ${ARGS}
                WORKING_DIRECTORY "${WORK_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(WRITE "${WORK_DIR}/actual.txt" "${out}")
message("${out}")
if(err)
  message("stderr:\n${err}")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${rc}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT out STREQUAL expected)
  execute_process(COMMAND diff -u "${EXPECTED}" "${WORK_DIR}/actual.txt")
  message(FATAL_ERROR "output differs from ${EXPECTED}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message("OK: output matches ${EXPECTED}")
