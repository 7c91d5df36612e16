# SPDX-License-Identifier: GPL-3.0-or-later
# monkey_reach (#40): one seeded walk must reach what the walks once left alone — files at URLs of
# a loopback range server, the Compare page's pair panel, the metadata edit with undo and save, and
# the Overview's kind facts. Run by CTest: cmake -DMONKEY=<gguf-monkey> -P reach.cmake
execute_process(COMMAND ${MONKEY} --seed 5 --actions 300 --max-stall-ms ${STALL} --verbose
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
string(APPEND out "${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "gguf-monkey failed (${status}):\n${out}")
endif()
foreach(reached "open URL /pool/" "drop URL /pool/" "compare the pair blk" ", view " "save as saved" "undo"
                "kind fact")
  string(FIND "${out}" "${reached}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the walk never did \"${reached}\"")
  endif()
endforeach()
