# The WebAssembly build (the `wasm` preset: Debian 12's emscripten and its prebuilt sysroot, with C++
# exceptions). What the native build takes from Debian's binary packages comes from Debian here too:
# - fmt (header-only), nlohmann-json and CLI11: the headers of Debian's -dev packages, each through a link
#   of its own, so that no other host header can reach the build;
# - protobuf-lite and pugixml: compiled from Debian's source packages of the versions installed, which
#   scripts/install-deps.sh unpacks into RESHAPE1_DEBIAN_SOURCES (outside the source tree);
# - ONNX's protobuf classes: onnx.proto of Debian's libonnx-dev (optimize_for = LITE_RUNTIME), through
#   Debian's protoc.
if(NOT EMSCRIPTEN)
  message(FATAL_ERROR "reshape1: RESHAPE1_BUILD_WASM needs emscripten's toolchain: configure with the wasm preset")
endif()
set(RESHAPE1_DEBIAN_SOURCES "/var/cache/reshape1/debian-src" CACHE PATH
    "Debian's sources of protobuf and pugixml, unpacked by scripts/install-deps.sh")
foreach(package IN ITEMS protobuf pugixml)
  if(NOT EXISTS ${RESHAPE1_DEBIAN_SOURCES}/${package}/CMakeLists.txt)
    message(FATAL_ERROR "reshape1: the WebAssembly build compiles Debian's ${package} source package, which is not in "
                        "${RESHAPE1_DEBIAN_SOURCES}/${package}: run scripts/install-deps.sh")
  endif()
endforeach()

# Every object of the module, the libraries' too, is compiled and linked with exceptions on: a malformed file
# is a reshape1::error caught and reported, never an aborted module.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)

set(_headers ${PROJECT_BINARY_DIR}/wasm/include)
file(MAKE_DIRECTORY ${_headers}/onnx)
foreach(dir IN ITEMS fmt nlohmann CLI)
  if(NOT EXISTS /usr/include/${dir})
    message(FATAL_ERROR "reshape1: /usr/include/${dir} is missing: run scripts/install-deps.sh")
  endif()
  file(CREATE_LINK /usr/include/${dir} ${_headers}/${dir} SYMBOLIC)
endforeach()
add_library(fmt::fmt INTERFACE IMPORTED)
target_include_directories(fmt::fmt SYSTEM INTERFACE ${_headers})
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY=1)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE ${_headers})
add_library(CLI11::CLI11 INTERFACE IMPORTED)
target_include_directories(CLI11::CLI11 SYSTEM INTERFACE ${_headers})

# protobuf-lite only (protobuf's own CMake project; nothing of it is built that the module does not link).
set(CMAKE_POLICY_DEFAULT_CMP0077 NEW)  # their option()s take the values set here
set(protobuf_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(protobuf_BUILD_PROTOC_BINARIES OFF CACHE BOOL "" FORCE)
set(protobuf_BUILD_LIBPROTOC OFF CACHE BOOL "" FORCE)
set(protobuf_BUILD_SHARED_LIBS OFF CACHE BOOL "" FORCE)
set(protobuf_WITH_ZLIB OFF CACHE BOOL "" FORCE)
set(protobuf_INSTALL OFF CACHE BOOL "" FORCE)
# Debian's protobuf and pugixml are compiled a file at a time, as their projects are: protobuf's sources do not
# compile together (file-local names clash). The wasm preset's unity build is for reshape1's own sources.
set(_unity ${CMAKE_UNITY_BUILD})
set(CMAKE_UNITY_BUILD OFF)
add_subdirectory(${RESHAPE1_DEBIAN_SOURCES}/protobuf ${PROJECT_BINARY_DIR}/wasm/protobuf EXCLUDE_FROM_ALL SYSTEM)
set(RESHAPE1_PROTOBUF protobuf::libprotobuf-lite)

set(BUILD_SHARED_LIBS OFF)
add_subdirectory(${RESHAPE1_DEBIAN_SOURCES}/pugixml ${PROJECT_BINARY_DIR}/wasm/pugixml EXCLUDE_FROM_ALL SYSTEM)
set(CMAKE_UNITY_BUILD ${_unity})

find_program(RESHAPE1_PROTOC protoc REQUIRED)
set(_onnx_proto /usr/include/onnx/onnx.proto)
if(NOT EXISTS ${_onnx_proto})
  message(FATAL_ERROR "reshape1: ${_onnx_proto} is missing: run scripts/install-deps.sh (libonnx-dev)")
endif()
add_custom_command(OUTPUT ${_headers}/onnx/onnx.pb.cc ${_headers}/onnx/onnx.pb.h
  COMMAND ${RESHAPE1_PROTOC} --cpp_out=${_headers} -I/usr/include ${_onnx_proto}
  DEPENDS ${_onnx_proto} VERBATIM COMMENT "Generating ONNX's protobuf classes (lite) from ${_onnx_proto}")
# The code includes <onnx/onnx_pb.h>, as ONNX's own header is named; here it is the classes just generated.
# (Written only when it changes: a new time stamp would rebuild every file that reads ONNX.)
file(CONFIGURE OUTPUT ${_headers}/onnx/onnx_pb.h CONTENT "#pragma once\n#include \"onnx/onnx.pb.h\"\n")
add_library(onnx_proto STATIC ${_headers}/onnx/onnx.pb.cc)
target_include_directories(onnx_proto SYSTEM PUBLIC ${_headers})
target_link_libraries(onnx_proto PUBLIC protobuf::libprotobuf-lite)
