# tests/layers_test.cmake: the build enforces the layers.  Each check
# compiles a one-line source against a layer's header view (as that layer's
# own files are compiled) and expects it to compile or not:
#   cmake -DCC=... -DVIEWS=build/layers -DMLIR_INCLUDE=... -P layers_test.cmake
foreach(var CC VIEWS MLIR_INCLUDE WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "layers_test.cmake: ${var} is not set")
  endif()
endforeach()

# view, header, expected ("ok" or "refused"), why
set(checks
  "ctx|lowersim/runtime.h|ok|a layer sees its own headers"
  "lower|lowersim/module_context.h|ok|the engine sees ctx/"
  "lax|lowersim/jaxpr_subcomp.h|ok|a feature sees the engine"
  "jax|lowersim/pallas_call.h|ok|the composition root sees every feature"
  "cli|fuzz/fuzz.h|ok|the command sees the fuzzer"
  "ctx|lowersim/registry.h|refused|ctx/ must not reach up into the engine"
  "lower|lowersim/lax.h|refused|the engine knows no feature"
  "lax|lowersim/buffer_callback.h|refused|a feature does not include another feature"
  "callbacks|lowersim/pallas.h|refused|a feature does not include another feature"
  "pallas|lowersim/jax.h|refused|a feature does not include the composition root"
  "jax|lowersim/scenario.h|refused|the library knows nothing of scenario files"
  "scenario|fuzz/fuzz.h|refused|the scenario layer is below the fuzzer"
  "fuzz|support/strbuf.h|refused|support/ is private to lowersim's libraries"
  "cli|support/raise.h|refused|support/ is private to lowersim's libraries")

set(failures 0)
foreach(check ${checks})
  string(REPLACE "|" ";" fields "${check}")
  list(GET fields 0 view)
  list(GET fields 1 header)
  list(GET fields 2 expected)
  list(GET fields 3 why)
  set(source ${WORK}/layer_${view}.c)
  file(WRITE ${source} "#include \"${header}\"\n")
  execute_process(
    COMMAND ${CC} -std=c11 -fsyntax-only -I${VIEWS}/${view} -isystem ${MLIR_INCLUDE} ${source}
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE said)
  # gcc says "HEADER: No such file or directory", clang "'HEADER' file not found".
  string(FIND "${said}" "${header}: No such file" missing_gcc)
  string(FIND "${said}" "'${header}' file not found" missing_clang)
  if(rc EQUAL 0)
    set(got ok)
  elseif(NOT missing_gcc EQUAL -1 OR NOT missing_clang EQUAL -1)
    set(got refused) # the header is not in the view, as the layer rule wants
  else()
    set(got "broken: ${said}") # it fails for another reason
  endif()
  if(NOT got STREQUAL expected)
    message(SEND_ERROR "FAIL ${view} including ${header}: ${got}, expected ${expected} (${why})")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "${view} including ${header}: ${got} (${why})")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures} layer checks failed")
endif()
