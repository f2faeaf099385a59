# Writes reshape1(1) with help2man: the tool's --help and --version, plus one section per subcommand
# holding that subcommand's --help. Then compresses it (OUTPUT.gz), as Debian installs man pages.
#   cmake -DPROGRAM=path/to/reshape1 -DHELP2MAN=path/to/help2man -DOUTPUT=reshape1.1 -P man_page.cmake

function(run out)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "man_page.cmake: `${ARGN}` failed (${status})")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Subcommands: the lines of the "Subcommands:" block of the top-level --help.
run(help "${PROGRAM}" --help)
string(REGEX MATCH "Subcommands:\n(.*)" block "${help}")
string(REGEX MATCHALL "\n  ([a-z][a-z0-9-]*)  " names "\n${CMAKE_MATCH_1}")
set(include "[COMMANDS]\n")
foreach(entry IN LISTS names)
  string(STRIP "${entry}" name)
  run(text "${PROGRAM}" ${name} --help)
  # roff: a backslash is written \e; a line may not begin with a control character.
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  string(APPEND include ".SS \"reshape1 ${name}\"\n.nf\n${text}.fi\n")
endforeach()
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(WRITE "${dir}/reshape1.h2m" "${include}")

run(ignored "${HELP2MAN}" --no-info --section=1 --name "OpenVINO's Reshape-1, complete and exact"
    --include "${dir}/reshape1.h2m" --output "${OUTPUT}" "${PROGRAM}")
file(ARCHIVE_CREATE OUTPUT "${OUTPUT}.gz" PATHS "${OUTPUT}" FORMAT raw COMPRESSION GZip COMPRESSION_LEVEL 9
     MTIME 0)
