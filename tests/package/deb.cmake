# Builds the Debian package as a user would (shared libraries, Release, prefix /usr), checks its name,
# contents and dependencies, and unpacks it into a scratch root with dpkg -x (never dpkg -i: an installed
# package would outlive the test and shadow the build tree).
#   cmake -DSOURCE=<checkout> -DBINARY=dir -DGENERATOR=Ninja -DVERSION=x.y.z -DSOVERSION=0.1 -DLIBDIR=lib/<arch> -DCPACK=cpack -P deb.cmake
# Leaves the unpacked package in BINARY/root.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "deb.cmake: `${ARGN}` failed (${status})\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${BINARY}")
# A Release build, unoptimised and in a unity build (several sources to a compiler run): what the package
# holds and depends on does not change with either, and compiling is most of this test's time (the
# optimised code, a source to a run, is what the ci preset's tests run).
run(${CMAKE_COMMAND} -S "${SOURCE}" -B "${BINARY}/build" -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON
    -DBUILD_SHARED_LIBS=ON -DRESHAPE1_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/usr "-DCMAKE_INSTALL_LIBDIR=${LIBDIR}")
run(${CMAKE_COMMAND} --build "${BINARY}/build")
run("${CPACK}" -G DEB -B "${BINARY}/out" --config "${BINARY}/build/CPackConfig.cmake")
run(dpkg --print-architecture)
string(STRIP "${out}" arch)
set(deb "${BINARY}/out/reshape1_${VERSION}_${arch}.deb")
if(NOT EXISTS "${deb}")
  file(GLOB made "${BINARY}/out/*.deb")
  message(FATAL_ERROR "deb.cmake: expected ${deb}; CPack made: ${made}")
endif()

run(dpkg-deb --field "${deb}" Depends)
string(STRIP "${out}" depends)
message(STATUS "Depends: ${depends}")
foreach(needed IN ITEMS libc6 libstdc\\+\\+6 libfmt[0-9]+ libpugixml libonnx libprotobuf)
  if(NOT depends MATCHES "(^|, )${needed}")
    message(FATAL_ERROR "deb.cmake: the package does not depend on ${needed}: Depends: ${depends}")
  endif()
endforeach()

run(dpkg-deb --contents "${deb}")
set(lib "usr/${LIBDIR}")
set(contents "${out}")
foreach(path IN ITEMS "usr/bin/reshape1\n" "usr/include/reshape1/version.hpp\n" "usr/include/reshape1/io/npy.hpp\n"
                      "usr/include/reshape1/model/graph.hpp\n" "${lib}/libreshape1.so.${VERSION}\n"
                      "${lib}/libreshape1_io.so.${VERSION}\n" "${lib}/libreshape1_model.so.${VERSION}\n"
                      "${lib}/libreshape1_onnx.so.${VERSION}\n" "usr/include/reshape1/onnx.hpp\n"
                      "${lib}/pkgconfig/reshape1-onnx.pc\n" "${lib}/cmake/reshape1/reshape1-onnx-targets.cmake\n"
                      "${lib}/libreshape1.so -> libreshape1.so.${SOVERSION}\n" "${lib}/cmake/reshape1/reshape1-config.cmake\n"
                      "${lib}/cmake/reshape1/reshape1-model-targets.cmake\n" "${lib}/pkgconfig/reshape1-model.pc\n" "usr/share/man/man1/reshape1.1.gz\n"
                      "usr/share/bash-completion/completions/reshape1\n" "usr/share/zsh/vendor-completions/_reshape1\n")
  string(REGEX MATCH "\\./${path}" found "${contents}")
  if(NOT found)
    message(FATAL_ERROR "deb.cmake: the package has no ${path}:\n${contents}")
  endif()
endforeach()

run(dpkg -x "${deb}" "${BINARY}/root")
