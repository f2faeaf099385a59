# Install rules: the libraries (one export set per component), their headers, the CMake package,
# pkg-config files, and the .deb (CPack). Included from the top-level CMakeLists.txt when RESHAPE1_INSTALL.

get_target_property(_reshape1_type reshape1 TYPE)
if(_reshape1_type STREQUAL "STATIC_LIBRARY")
  set(RESHAPE1_STATIC TRUE)
else()
  set(RESHAPE1_STATIC FALSE)
endif()

set(RESHAPE1_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/reshape1)
set(RESHAPE1_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Headers: each library installs its own, so that a build without a component installs no header that
# would not link.
install(DIRECTORY include/reshape1 DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN io EXCLUDE PATTERN model EXCLUDE PATTERN onnx.hpp EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/include/reshape1/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/reshape1)

install(TARGETS reshape1 EXPORT reshape1-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT reshape1-targets NAMESPACE reshape1:: DESTINATION ${RESHAPE1_CONFIG_DIR})
export(EXPORT reshape1-targets NAMESPACE reshape1:: FILE ${PROJECT_BINARY_DIR}/reshape1-targets.cmake)

set(_reshape1_components)
if(RESHAPE1_BUILD_IO)
  list(APPEND _reshape1_components io)
  install(FILES include/reshape1/io/npy.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/reshape1/io)
endif()
if(RESHAPE1_BUILD_MODEL)
  list(APPEND _reshape1_components model)
  install(DIRECTORY include/reshape1/model DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/reshape1)
endif()
if(TARGET reshape1_onnx)
  list(APPEND _reshape1_components onnx)
  install(FILES include/reshape1/onnx.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/reshape1)
endif()
foreach(component IN LISTS _reshape1_components)
  install(TARGETS reshape1_${component} EXPORT reshape1-${component}-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT reshape1-${component}-targets NAMESPACE reshape1:: DESTINATION ${RESHAPE1_CONFIG_DIR})
  export(EXPORT reshape1-${component}-targets NAMESPACE reshape1::
         FILE ${PROJECT_BINARY_DIR}/reshape1-${component}-targets.cmake)
endforeach()

configure_package_config_file(cmake/reshape1-config.cmake.in ${PROJECT_BINARY_DIR}/reshape1-config.cmake
                              INSTALL_DESTINATION ${RESHAPE1_CONFIG_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/reshape1-config-version.cmake
                                 COMPATIBILITY ${RESHAPE1_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/reshape1-config.cmake ${PROJECT_BINARY_DIR}/reshape1-config-version.cmake
        DESTINATION ${RESHAPE1_CONFIG_DIR})

# pkg-config: reshape1.pc, reshape1-io.pc, reshape1-model.pc. Written at install time, so that the prefix
# is the one installed to (cmake --install --prefix, CPack's /usr), not the one configured.
# A shared build needs no Requires.private: the libraries name their own dependencies.
set(_pc_reshape1_private "")
set(_pc_io_private "")
set(_pc_model_private "")
set(_pc_onnx_private "")
if(RESHAPE1_STATIC)
  set(_pc_reshape1_private "fmt")
  set(_pc_io_private "fmt")
  set(_pc_model_private "reshape1-io = ${PROJECT_VERSION}, fmt, pugixml")
  # Debian ships no pkg-config file for ONNX: a static reshape1-onnx names its libraries itself.
  set(_pc_onnx_private "reshape1-io = ${PROJECT_VERSION}, fmt, protobuf")
endif()
set(_pc_dir ${PROJECT_BINARY_DIR}/pkgconfig)
foreach(_dir IN ITEMS libdir includedir)
  string(TOUPPER ${_dir} _upper)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_upper}}")
    set(_pc_${_dir} "${CMAKE_INSTALL_${_upper}}")
  else()
    set(_pc_${_dir} "\${prefix}/${CMAKE_INSTALL_${_upper}}")
  endif()
endforeach()
foreach(lib IN ITEMS reshape1 io model onnx)
  if(lib STREQUAL "reshape1")
    set(_pc_name reshape1)
    set(_pc_library reshape1)
    set(_pc_description "OpenVINO's Reshape-1: shape inference and the data path")
    set(_pc_requires "")
  else()
    if(NOT lib IN_LIST _reshape1_components)
      continue()
    endif()
    set(_pc_name reshape1-${lib})
    set(_pc_library reshape1_${lib})
    set(_pc_requires "reshape1 = ${PROJECT_VERSION}")
    if(lib STREQUAL "io")
      set(_pc_description "reshape1: .npy and raw tensor files")
    elseif(lib STREQUAL "onnx")
      set(_pc_requires "reshape1-model = ${PROJECT_VERSION}")
      set(_pc_description "reshape1: ONNX models")
    else()
      set(_pc_description "reshape1: OpenVINO IR models")
    endif()
  endif()
  if(lib STREQUAL "reshape1")
    set(_pc_requires_private "${_pc_reshape1_private}")
  else()
    set(_pc_requires_private "${_pc_${lib}_private}")
  endif()
  set(_pc_text "prefix=@PC_PREFIX@\nlibdir=${_pc_libdir}\nincludedir=${_pc_includedir}\n\n")
  string(APPEND _pc_text "Name: ${_pc_name}\nDescription: ${_pc_description}\nVersion: ${PROJECT_VERSION}\n")
  if(_pc_requires)
    string(APPEND _pc_text "Requires: ${_pc_requires}\n")
  endif()
  if(_pc_requires_private)
    string(APPEND _pc_text "Requires.private: ${_pc_requires_private}\n")
  endif()
  if(lib STREQUAL "onnx" AND RESHAPE1_STATIC)
    string(APPEND _pc_text "Libs: -L\${libdir} -l${_pc_library}\nLibs.private: -lonnx_proto\nCflags: -I\${includedir}\n")
  else()
    string(APPEND _pc_text "Libs: -L\${libdir} -l${_pc_library}\nCflags: -I\${includedir}\n")
  endif()
  set(_pc_template ${_pc_dir}/${_pc_name}.pc.in)
  file(WRITE ${_pc_template} "${_pc_text}")
  install(CODE "
    set(PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    configure_file(\"${_pc_template}\" \"${_pc_dir}/install/${_pc_name}.pc\" @ONLY)
    file(INSTALL \"${_pc_dir}/install/${_pc_name}.pc\"
         DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${RESHAPE1_PKGCONFIG_DIR}\")")
endforeach()

include(cmake/package.cmake)
