# cmake -DREADME=<README.md> -DBLOCKS="c=<file>;python=<file>" -P CheckReadme.cmake
# The README's tours are real programs: each fenced block of a language
# named in BLOCKS (the first ```c block, the first ```python block, ...) must
# be exactly the file that the test suites compile and run.
cmake_minimum_required(VERSION 3.24)
file(READ "${README}" readme)
foreach(pair IN LISTS BLOCKS)
  string(REGEX REPLACE "=.*" "" language "${pair}")
  string(REGEX REPLACE "^[^=]*=" "" path "${pair}")
  string(FIND "${readme}" "\n```${language}\n" start)
  if(start EQUAL -1)
    message(FATAL_ERROR "README.md has no ```${language} block")
  endif()
  math(EXPR start "${start} + 5")
  string(LENGTH "${language}" length)
  math(EXPR start "${start} + ${length}")
  string(SUBSTRING "${readme}" ${start} -1 rest)
  string(FIND "${rest}" "\n```" end)
  math(EXPR end "${end} + 1")
  string(SUBSTRING "${rest}" 0 ${end} block)
  file(READ "${path}" program)
  if(NOT block STREQUAL program)
    file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/readme-${language}.txt" "${block}")
    message(FATAL_ERROR "README.md's ```${language} block differs from ${path} "
                        "(the block is in ${CMAKE_CURRENT_BINARY_DIR}/readme-${language}.txt)")
  endif()
  message("OK: README.md's ```${language} block is ${path}")
endforeach()
