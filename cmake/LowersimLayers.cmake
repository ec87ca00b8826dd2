# The layers of lowersim and the headers each may include.
#
# Every folder is one target that sees only a "view": a directory under the
# build tree holding symbolic links to the headers its layer may include
# (its own public headers and those of the layers below).  A target's
# include path is its view, never the source tree, so an include that points
# up, or sideways from one feature folder to another, or from the fuzzer or
# the command into support/, does not compile.  Folder-local private headers
# are included by their bare name from the folder itself.
#
#   support   lowersim/error.h, lowersim/version.h, support/*.h (private to lowersim's libraries)
#   ctx       + runtime, aval, jax_profile, primitive, program, module_context,
#               lowering_rule_context
#   lower     + registry, lower_per_platform, jaxpr_subcomp, emit, verify,
#               mlir_text, lowering
#   lax, callbacks, pallas   each: lower + its own headers
#   jax       lower + every feature's headers + jax.h
#   scenario  jax + the scenario headers
#   fuzz      the public headers (no support/) + fuzz/fuzz.h
#   cli       fuzz's view

set(LOWERSIM_VIEWS_DIR ${PROJECT_BINARY_DIR}/layers)

set(_support_h lowersim/error.h lowersim/version.h lowersim/alloc.h support/alloc.h support/encode.h
    support/emit_cache.h support/mlir_text.h support/name_index.h support/options.h
    support/raise.h support/strbuf.h)
set(_ctx_h lowersim/runtime.h lowersim/aval.h lowersim/jax_profile.h lowersim/primitive.h
    lowersim/program.h lowersim/module_context.h lowersim/lowering_rule_context.h)
set(_lower_h lowersim/registry.h lowersim/lower_per_platform.h lowersim/jaxpr_subcomp.h
    lowersim/emit.h lowersim/io_alias.h lowersim/sharding.h lowersim/verify.h lowersim/mlir_text.h
    lowersim/lowering.h lowersim/export.h lowersim/compute_on.h)
set(_lax_h lowersim/lax.h lowersim/conditionals.h lowersim/ffi.h)
set(_callbacks_h lowersim/buffer_callback.h lowersim/callback.h lowersim/debugging.h)
set(_pallas_h lowersim/pallas.h lowersim/pallas_call.h lowersim/mosaic_tpu.h lowersim/triton.h
    lowersim/mosaic_gpu.h)
set(_jax_h lowersim/jax.h)
set(_scenario_h lowersim/scenario.h lowersim/scenario_kind.h lowersim/scenario_generate.h
    lowersim/scenario_run.h lowersim/scenario_python.h lowersim/scenario_port.h
    lowersim/scenario_output.h)
set(_fuzz_h fuzz/fuzz.h)

# The file behind a view entry: public headers live in include/.
function(_lowersim_header_source out header)
  if(header MATCHES "^lowersim/")
    set(${out} ${PROJECT_SOURCE_DIR}/include/${header} PARENT_SCOPE)
  else()
    set(${out} ${PROJECT_SOURCE_DIR}/${header} PARENT_SCOPE)
  endif()
endfunction()

# lowersim_view(NAME header...): the view NAME, made anew at configure time.
function(lowersim_view name)
  set(dir ${LOWERSIM_VIEWS_DIR}/${name})
  file(REMOVE_RECURSE ${dir})
  foreach(header ${ARGN})
    _lowersim_header_source(source ${header})
    if(NOT EXISTS ${source})
      message(FATAL_ERROR "view ${name}: ${header} does not exist (${source})")
    endif()
    get_filename_component(parent ${dir}/${header} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${source} ${dir}/${header} SYMBOLIC)
  endforeach()
endfunction()

set(LOWERSIM_PUBLIC_HEADERS lowersim/error.h lowersim/version.h lowersim/alloc.h ${_ctx_h} ${_lower_h} ${_lax_h} ${_callbacks_h}
    ${_pallas_h} ${_jax_h} ${_scenario_h})
lowersim_view(support ${_support_h})
lowersim_view(ctx ${_support_h} ${_ctx_h})
lowersim_view(lower ${_support_h} ${_ctx_h} ${_lower_h})
lowersim_view(lax ${_support_h} ${_ctx_h} ${_lower_h} ${_lax_h})
lowersim_view(callbacks ${_support_h} ${_ctx_h} ${_lower_h} ${_callbacks_h})
lowersim_view(pallas ${_support_h} ${_ctx_h} ${_lower_h} ${_pallas_h})
lowersim_view(jax ${_support_h} ${_ctx_h} ${_lower_h} ${_lax_h} ${_callbacks_h} ${_pallas_h}
              ${_jax_h})
lowersim_view(scenario ${_support_h} ${LOWERSIM_PUBLIC_HEADERS})
lowersim_view(fuzz ${LOWERSIM_PUBLIC_HEADERS} ${_fuzz_h})
lowersim_view(cli ${LOWERSIM_PUBLIC_HEADERS} ${_fuzz_h})

# lowersim_layer(TARGET VIEW): TARGET compiles against VIEW alone (and the
# system's MLIR and libxml2 headers).
function(lowersim_layer target view)
  target_include_directories(${target} PRIVATE ${LOWERSIM_VIEWS_DIR}/${view})
  target_include_directories(${target} SYSTEM PRIVATE ${MLIR_INCLUDE_DIRS})
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:lowersim_flags>)
endfunction()

# lowersim_library_folder(NAME sources...): the OBJECT library of one folder
# of liblowersim.a, against the view of the same name.
function(lowersim_library_folder name)
  add_library(lowersim_${name} OBJECT ${ARGN})
  lowersim_layer(lowersim_${name} ${name})
  set_property(GLOBAL APPEND PROPERTY LOWERSIM_OBJECT_LIBRARIES lowersim_${name})
endfunction()
