# ctest build.stage_boundaries: proves the build enforces the stage graph. Compiles two probes in the
# simulate stage's include view: one including a lower stage (must compile) and one including the
# report stage (must fail, and fail because the header is not visible, not for another reason).
# Usage: cmake -DBUILD_DIR=<build> -P stage_boundaries.cmake
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ltl_probe_forward_include
                RESULT_VARIABLE fwd_rc OUTPUT_VARIABLE fwd_out ERROR_VARIABLE fwd_out)
if(NOT fwd_rc EQUAL 0)
  message(FATAL_ERROR "a permitted include (simulate -> hash) failed to compile:\n${fwd_out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ltl_probe_backward_include
                RESULT_VARIABLE back_rc OUTPUT_VARIABLE back_out ERROR_VARIABLE back_out)
if(back_rc EQUAL 0)
  message(FATAL_ERROR "a backward include (simulate -> report) compiled: stages are not enforced")
endif()
if(NOT back_out MATCHES "report/report_json\\.h'?:? (No such file|file not found)")
  message(FATAL_ERROR "the backward include failed for another reason:\n${back_out}")
endif()
message(STATUS "stage boundaries enforced: simulate sees hash, not report")
