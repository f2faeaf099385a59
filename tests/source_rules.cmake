# The layout rules of issue 46 that a reader of the tree relies on, checked on the sources (cmake -P, with
# SOURCE_DIR): an op's facts live in its row of the rules folder (src/model/ops), so no other code decides by
# comparing a layer's type with an op's name (the ONNX reader's lowering dispatches on a node's own op_type,
# the file's vocabulary, which reads `.op_type()`, not `.type`); and no file of src/model or src/onnx grows
# past 1,000 lines, where one file starts to hold several jobs.
cmake_minimum_required(VERSION 3.25)
set(failures "")
file(GLOB_RECURSE code RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/src/*.cpp ${SOURCE_DIR}/src/*.hpp
     ${SOURCE_DIR}/cli/*.cpp ${SOURCE_DIR}/cli/*.hpp ${SOURCE_DIR}/python/*.cpp ${SOURCE_DIR}/python/*.py)
foreach(f IN LISTS code)
  if(f MATCHES "^src/model/ops/")
    continue()
  endif()
  file(STRINGS ${SOURCE_DIR}/${f} hits REGEX "(\\.|->)(type|op|kind)(\\(\\))? *(==|!=) *\"[A-Z]")
  foreach(h IN LISTS hits)
    string(STRIP "${h}" h)
    string(APPEND failures "${f}: compares a layer's type with an op's name outside src/model/ops: ${h}\n")
  endforeach()
endforeach()
file(GLOB_RECURSE big RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/src/model/*.cpp ${SOURCE_DIR}/src/model/*.hpp
     ${SOURCE_DIR}/src/onnx/*.cpp ${SOURCE_DIR}/src/onnx/*.hpp)
foreach(f IN LISTS big)
  file(STRINGS ${SOURCE_DIR}/${f} lines)
  list(LENGTH lines n)
  if(n GREATER 1000)
    string(APPEND failures "${f}: ${n} lines, over 1,000\n")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
