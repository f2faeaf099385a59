# The ONNX tests (included from tests/CMakeLists.txt when reshape1::onnx is built): their gtest suites,
# whose folders mirror src/onnx (read/, lower/, fix/, shapes/; analysis/ for check --batch and --shape on
# ONNX models, models/ for the shared models), and the fixtures of tests/data/onnx turned from protobuf text
# into .onnx files for the CLI, Python and ONNX Runtime tests (in ${RESHAPE1_ONNX_FIXTURES}). The helper
# programs and the ONNX Runtime drivers stay at this folder's top.
add_executable(onnx_from_text ${CMAKE_CURRENT_LIST_DIR}/onnx_from_text.cpp)
target_link_libraries(onnx_from_text PRIVATE onnx_proto protobuf::libprotobuf)
target_compile_options(onnx_from_text PRIVATE ${RESHAPE1_WARNING_FLAGS})
target_compile_features(onnx_from_text PRIVATE cxx_std_20)

set(RESHAPE1_ONNX_FIXTURES ${CMAKE_CURRENT_BINARY_DIR}/onnx-fixtures)
file(GLOB _onnx_texts CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/data/onnx/*.textproto)
set(_onnx_fixtures)
foreach(text IN LISTS _onnx_texts)
  get_filename_component(name ${text} NAME_WE)
  add_custom_command(OUTPUT ${RESHAPE1_ONNX_FIXTURES}/${name}.onnx
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${RESHAPE1_ONNX_FIXTURES}
                     COMMAND onnx_from_text ${text} ${RESHAPE1_ONNX_FIXTURES}/${name}.onnx
                     DEPENDS onnx_from_text ${text} VERBATIM)
  list(APPEND _onnx_fixtures ${RESHAPE1_ONNX_FIXTURES}/${name}.onnx)
endforeach()
add_custom_command(OUTPUT ${RESHAPE1_ONNX_FIXTURES}/external_shape.bin
                   COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/tests/data/onnx/external_shape.bin
                           ${RESHAPE1_ONNX_FIXTURES}/external_shape.bin
                   DEPENDS ${PROJECT_SOURCE_DIR}/tests/data/onnx/external_shape.bin VERBATIM)
add_custom_target(onnx_fixtures ALL DEPENDS ${_onnx_fixtures} ${RESHAPE1_ONNX_FIXTURES}/external_shape.bin)

# The gtest files, a line a folder (lower/: the table's rows, then one file a family of src/onnx/lower/).
set(_onnx_tests
    read/read_test.cpp read/functions_test.cpp read/bodies_test.cpp read/refusals_test.cpp read/skim_test.cpp
    analysis/batch_test.cpp analysis/sizes_test.cpp
    models/shared_models_test.cpp
    lower/rows_test.cpp lower/table_test.cpp lower/elementwise_test.cpp lower/convolution_test.cpp
    lower/normalization_test.cpp lower/matmul_test.cpp lower/shape_test.cpp lower/indexing_test.cpp
    lower/reduction_test.cpp lower/resize_test.cpp lower/recurrent_test.cpp lower/detection_test.cpp
    lower/microsoft_test.cpp lower/quantization_test.cpp lower/control_flow_test.cpp lower/attention_test.cpp
    lower/signal_test.cpp lower/random_test.cpp lower/text_test.cpp lower/sequence_test.cpp lower/ml_test.cpp
    fix/fix_test.cpp fix/new_sizes_test.cpp fix/formats_test.cpp
    shapes/shapes_test.cpp)
list(TRANSFORM _onnx_tests PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
add_executable(reshape1_onnx_tests ${_onnx_tests})
target_compile_definitions(reshape1_onnx_tests PRIVATE RESHAPE1_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data"
                                                       RESHAPE1_SHARED_MODELS="${PROJECT_SOURCE_DIR}/../shared/ir-models"
                                                       RESHAPE1_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
target_link_libraries(reshape1_onnx_tests PRIVATE reshape1::onnx reshape1::model reshape1_io onnx onnx_proto
                                                  protobuf::libprotobuf GTest::gtest GTest::gtest_main fmt::fmt)
target_include_directories(reshape1_onnx_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)  # io/files.hpp's test hook
target_compile_options(reshape1_onnx_tests PRIVATE ${RESHAPE1_WARNING_FLAGS} ${RESHAPE1_SANITIZER_FLAGS})
target_link_options(reshape1_onnx_tests PRIVATE ${RESHAPE1_SANITIZER_FLAGS})
gtest_discover_tests(reshape1_onnx_tests DISCOVERY_TIMEOUT 60 TEST_PREFIX onnx.)
# Every row of the ONNX table is lowered by a case of lower/<family>_test.cpp: the cases, all in the suite
# onnx/lower_rows, in one process (gtest_discover_tests gives each its own), whose environment then names
# each row none of them lowered.
add_test(NAME onnx.every_row_has_a_lowering_test COMMAND reshape1_onnx_tests --gtest_filter=onnx/lower_rows.*)
set_tests_properties(onnx.every_row_has_a_lowering_test PROPERTIES ENVIRONMENT RESHAPE1_ONNX_ROW_COVERAGE=1)

# The ONNX Runtime agreement test: a copy of each model with its batch freed, run by ONNX Runtime (npm's
# onnxruntime-node, installed by scripts/install-deps.sh outside the source tree) per sample and stacked,
# against `reshape1 check` at the same shapes (tests/onnx/ort_agreement.py).
add_executable(onnx_free_batch ${CMAKE_CURRENT_LIST_DIR}/onnx_free_batch.cpp)
target_link_libraries(onnx_free_batch PRIVATE onnx_proto protobuf::libprotobuf)
target_compile_options(onnx_free_batch PRIVATE ${RESHAPE1_WARNING_FLAGS})
target_compile_features(onnx_free_batch PRIVATE cxx_std_20)
if(RESHAPE1_BUILD_CLI)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  add_test(NAME onnx.ort_agreement
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/ort_agreement.py $<TARGET_FILE:reshape1_cli>
                   $<TARGET_FILE:onnx_free_batch> ${RESHAPE1_ONNX_FIXTURES})
  set_tests_properties(onnx.ort_agreement PROPERTIES TIMEOUT 600)
endif()
if(RESHAPE1_BUILD_CLI)
  # Every output of check, check --batch and fix on every shared and test model and fixture, against the
  # committed goldens (tests/golden/golden.py; --write rewrites them when an output is meant to change).
  # Under the sanitizers, the fixtures only: the shared models' runs were most of the sanitizer build's
  # time in CI (680 s of it), and the sanitized model tests (models_test, onnx/models/shared_models_test, fix_test) read,
  # check and fix every shared model already; the release build compares all of them.
  set(_golden_only)
  if(RESHAPE1_SANITIZE)
    set(_golden_only --only fixture.)
  endif()
  add_test(NAME golden
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/golden/golden.py $<TARGET_FILE:reshape1_cli>
                   ${RESHAPE1_ONNX_FIXTURES} ${_golden_only})
  set_tests_properties(golden PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
endif()
if(RESHAPE1_BUILD_CLI)
  # Random small ONNX graphs through ONNX Runtime and reshape1 (tests/property/onnx_differential.py).
  add_test(NAME onnx.differential
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/property/onnx_differential.py
                   $<TARGET_FILE:reshape1_cli> $<TARGET_FILE:onnx_from_text> $<TARGET_FILE:onnx_free_batch>
                   --graphs ${RESHAPE1_PROPERTY_GRAPHS} --seed 1)
  set_tests_properties(onnx.differential PROPERTIES TIMEOUT 900)
  # Small programs exported at one size and run at another, through ONNX Runtime and reshape1's check at new
  # sizes, and fix --shape on those that differ or fail (tests/property/size_differential.py). The same 280
  # programs in both builds: the test bounds the share of programs that compute the same yet get no "yes" at
  # 10%, a rate a smaller set cannot hold steadily (100 programs hold about 33 such, each 3%; seed 1 put 4 of
  # them over it once a family was added, where the 280 hold 8 of 84).
  add_test(NAME onnx.size_differential
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/property/size_differential.py
                   $<TARGET_FILE:reshape1_cli> $<TARGET_FILE:onnx_from_text> --programs 280 --seed 1 --fix)
  set_tests_properties(onnx.size_differential PROPERTIES TIMEOUT 600)
endif()
if(RESHAPE1_BUILD_CLI)
  # torch.onnx.export output at one size, checked and run at another (tests/onnx/torch_sizes.py).
  add_test(NAME onnx.torch_sizes
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/torch_sizes.py $<TARGET_FILE:reshape1_cli>
                   $<TARGET_FILE:onnx_free_batch> ${RESHAPE1_ONNX_FIXTURES})
  set_tests_properties(onnx.torch_sizes PROPERTIES TIMEOUT 600)
endif()
if(RESHAPE1_BUILD_CLI)
  # check --shape on every shared model at two other sizes, pinned and explained, the ONNX ones run by ONNX
  # Runtime there (tests/golden/sizes.py; --write rewrites tests/golden/sizes/).
  add_test(NAME golden.sizes
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/golden/sizes.py $<TARGET_FILE:reshape1_cli>
                   $<TARGET_FILE:onnx_free_batch>)
  set_tests_properties(golden.sizes PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
  # fix --shape on every shared model with its sizes free, pinned and explained (tests/golden/fix_sizes.py;
  # --write rewrites tests/golden/fix_sizes/).
  add_test(NAME golden.fix_sizes
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/golden/fix_sizes.py $<TARGET_FILE:reshape1_cli>)
  set_tests_properties(golden.fix_sizes PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
endif()

# The attributes column of src/onnx/op_list.tsv against ONNX's own schemas (the versions Debian's ONNX holds).
add_executable(op_attributes ${CMAKE_CURRENT_LIST_DIR}/op_attributes.cpp)
target_link_libraries(op_attributes PRIVATE onnx onnx_proto protobuf::libprotobuf)
target_compile_options(op_attributes PRIVATE ${RESHAPE1_WARNING_FLAGS})
target_compile_features(op_attributes PRIVATE cxx_std_20)
add_test(NAME onnx.op_attributes_match_onnx COMMAND op_attributes ${PROJECT_SOURCE_DIR}/src/onnx/op_list.tsv)
if(NOT RESHAPE1_SANITIZE)
  # The same column against ONNX Runtime, every row it can be asked about (the versions above 17 and the
  # com.microsoft ops too): each listed name recognised, every other name the column uses refused, and no
  # row left "?" that it could be asked about (tests/onnx/op_attributes_ort.py). Not in the sanitizer build:
  # it checks a data file, which no build changes.
  add_test(NAME onnx.op_attributes_ort
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/op_attributes_ort.py $<TARGET_FILE:op_attributes>
                   ${PROJECT_SOURCE_DIR}/src/onnx/op_list.tsv)
  set_tests_properties(onnx.op_attributes_ort PROPERTIES TIMEOUT 600)
  # Its ort column against ONNX Runtime: a version it creates a session for is not "-", one it finds no kernel
  # for is (tests/onnx/op_kernels_ort.py).
  add_test(NAME onnx.op_kernels_ort
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/op_kernels_ort.py $<TARGET_FILE:op_attributes>
                   ${PROJECT_SOURCE_DIR}/src/onnx/op_list.tsv)
  set_tests_properties(onnx.op_kernels_ort PROPERTIES TIMEOUT 300)
  # Its types column against ONNX Runtime: each input's element types, which inputs are bound to one type, and
  # what each output's type follows (tests/onnx/op_types_ort.py). The rows up to opset 17 are held against ONNX
  # 1.12's schemas too, by onnx.op_attributes_match_onnx.
  add_test(NAME onnx.op_types_ort
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/op_types_ort.py $<TARGET_FILE:op_attributes>
                   ${PROJECT_SOURCE_DIR}/src/onnx/op_list.tsv)
  set_tests_properties(onnx.op_types_ort PROPERTIES TIMEOUT 300)
endif()

# What ONNX's checker and shape inference say of a model `reshape1 shapes -o` wrote, and the copy that
# exposes every tensor to ONNX Runtime (tests/onnx/shapes_ort.py).
add_executable(onnx_shapes_check ${CMAKE_CURRENT_LIST_DIR}/onnx_shapes_check.cpp)
target_link_libraries(onnx_shapes_check PRIVATE onnx onnx_proto protobuf::libprotobuf)
target_compile_options(onnx_shapes_check PRIVATE ${RESHAPE1_WARNING_FLAGS})
target_compile_features(onnx_shapes_check PRIVATE cxx_std_20)
if(RESHAPE1_BUILD_CLI AND NOT RESHAPE1_SANITIZE)
  # ONNX Runtime against the copies `shapes -o` writes; not in the sanitizer build, as onnx.op_truth.
  add_test(NAME onnx.shapes_ort
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/shapes_ort.py $<TARGET_FILE:reshape1_cli>
                   $<TARGET_FILE:onnx_shapes_check> ${RESHAPE1_ONNX_FIXTURES})
  set_tests_properties(onnx.shapes_ort PROPERTIES TIMEOUT 600)
endif()
if(RESHAPE1_BUILD_CLI AND NOT RESHAPE1_SANITIZE)
  # Single-node models of 75 op families with random shapes and attributes, their shapes against ONNX Runtime's
  # (tests/property/op_truth.py and op_truth_*.py). Not in the sanitizer build: what it checks is the rules' answers,
  # which do not depend on it, and the sanitizer build runs the same code through the rule and fixture tests.
  add_test(NAME onnx.op_truth
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/property/op_truth.py $<TARGET_FILE:reshape1_cli>
                   $<TARGET_FILE:onnx_from_text> --cases 40 --seed 1)
  set_tests_properties(onnx.op_truth PROPERTIES TIMEOUT 600)
endif()
