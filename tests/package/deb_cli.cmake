# Runs the unpacked package's CLI: --version, and the specification's examples against their expected output.
#   cmake -DROOT=<unpacked .deb> -DLIBDIR=<its library directory> -DSOURCE=<checkout> -DVERSION=x.y.z -P deb_cli.cmake
set(ENV{LD_LIBRARY_PATH} "${LIBDIR}")
set(cli "${ROOT}/usr/bin/reshape1")
execute_process(COMMAND "${cli}" --version OUTPUT_VARIABLE out RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT out STREQUAL "reshape1 ${VERSION}\n")
  message(FATAL_ERROR "deb_cli.cmake: `reshape1 --version` printed '${out}' (exit ${status}), not 'reshape1 ${VERSION}'")
endif()
execute_process(COMMAND "${SOURCE}/examples/spec_examples.sh" "${cli}" OUTPUT_VARIABLE out RESULT_VARIABLE status)
file(READ "${SOURCE}/examples/spec_examples.expected" expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "deb_cli.cmake: the spec examples printed\n${out}\ninstead of\n${expected}")
endif()
execute_process(COMMAND bash -c "source '${ROOT}/usr/share/bash-completion/completions/reshape1' && complete -p reshape1"
                OUTPUT_VARIABLE out RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT out MATCHES "_reshape1")
  message(FATAL_ERROR "deb_cli.cmake: the bash completion does not register itself: ${out}")
endif()
message(STATUS "reshape1 ${VERSION} from the .deb: --version, the spec examples and the completion ok")
