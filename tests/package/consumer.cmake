# Configures, builds and tests tests/consumer in a fresh build directory.
#   cmake -DSOURCE=tests/consumer -DBINARY=dir -DGENERATOR=Ninja -DCTEST=ctest
#         [-DOPTIONS=-Da=1|-Db=2] [-DENV=NAME=value|NAME=value] -P consumer.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "consumer.cmake: `${ARGN}` failed (${status})")
  endif()
endfunction()

string(REPLACE "|" ";" OPTIONS "${OPTIONS}")
string(REPLACE "|" ";" ENV "${ENV}")
foreach(setting IN LISTS ENV)
  string(REGEX MATCH "^([^=]+)=(.*)$" ignored "${setting}")
  set(ENV{${CMAKE_MATCH_1}} "${CMAKE_MATCH_2}")
endforeach()
file(REMOVE_RECURSE "${BINARY}")
run(${CMAKE_COMMAND} -S "${SOURCE}" -B "${BINARY}" -G "${GENERATOR}" ${OPTIONS})
run(${CMAKE_COMMAND} --build "${BINARY}")
run(${CTEST} --test-dir "${BINARY}" --output-on-failure)
