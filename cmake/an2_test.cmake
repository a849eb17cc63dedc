# Helpers shared by every area's tests: a test gets a label and a private temp dir.
#
# an2_add_test(NAME name COMMAND cmd... LABELS l... [TIMEOUT s])
#   Runs cmd with AN2_TEST_TMP naming a directory of its own under the build tree
#   (test-tmp/<name>) that the test makes and removes; PVM_ALLOW_ROOT=1 because CI runs as root.
function(an2_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "COMMAND;LABELS;ENVIRONMENT" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES
    LABELS "${T_LABELS}"
    TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "PVM_ALLOW_ROOT=1;AN2_TEST_TMP=${CMAKE_BINARY_DIR}/test-tmp/${T_NAME};AN2_BUILD_DIR=${CMAKE_BINARY_DIR};AN2_SOURCE_DIR=${CMAKE_SOURCE_DIR};${T_ENVIRONMENT}")
endfunction()
