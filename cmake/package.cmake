# The Debian package, built by CPack from the install rules: `cpack -G DEB` in a build tree configured
# with -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_SHARED_LIBS=ON (README.md, "Debian package") gives
# reshape1_<version>_amd64.deb: the libraries, headers, CMake and pkg-config files, the CLI, its man page
# and shell completions. Only for a top-level build: an embedding project keeps its own CPack settings.
if(NOT PROJECT_IS_TOP_LEVEL)
  return()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME reshape1)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "reshape1")
set(CPACK_PACKAGE_CONTACT "reshape1 developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "A C++20 library for OpenVINO's Reshape-1 operation (shape inference on static and partial shapes, and "
    "the data path for every OpenVINO element type), its .npy and OpenVINO IR readers, and the reshape1 "
    "command-line tool (infer, run, check).")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # reshape1_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Run-time dependencies come from dpkg-shlibdeps on the libraries and the CLI; it finds reshape1's own
# libraries in the build tree.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR} ${PROJECT_BINARY_DIR}/src/model
                                               ${PROJECT_BINARY_DIR}/src/onnx)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# Static libraries need their dependencies' development files to be linked by a consumer.
if(RESHAPE1_STATIC)
  set(_deb_dev_depends libfmt-dev)
  if(RESHAPE1_BUILD_MODEL)
    list(APPEND _deb_dev_depends libpugixml-dev)
  endif()
  if(TARGET reshape1_onnx)
    list(APPEND _deb_dev_depends libonnx-dev libprotobuf-dev)
  endif()
  list(JOIN _deb_dev_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
endif()

include(CPack)
