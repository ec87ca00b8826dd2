// pallas/mosaic_gpu_kernel.mlir: the module JAX's Mosaic GPU pallas_call
// lowering emits for lowersim's kernels (add_one, copy) on a 1-D block that
// is the whole array, as JAX 0.10.2 (//! legacy) and the seed's warpgroup
// semantics (//! warpgroup, from 32915de40f) write it: generic ops, each of
// which lowersim renames `stable_mosaic_gpu.<op>` (the mosaic_gpu-serde
// pass's serialized form, every attribute a plain attribute, as that pass
// leaves them).  Taken from JAX's own output (jax/experimental/mosaic/gpu/
// core.py _lower_as_gpu_kernel: the launch with its TMA descriptor, the
// pipeline's barrier, the block's copy into shared memory, the kernel on
// registers, the copy back) and parametrised.  pallas/mosaic_gpu.c renders
// it:
//   @NAME@    a value: KERNEL (add_one, copy), T (element type), N (block
//             elements), G (grid steps), ISZ (bytes per element), BYTES,
//             TX (BYTES / 128), AL / AL2 (a buffer's shared memory, BYTES
//             rounded up to 1024, and twice that), SMEM (AL2 + the 8-byte
//             barrier), PER (elements per register: min(8 / ISZ, N / 128)),
//             TMA (launch_context._tma_dma_type), IW (the grid index's
//             width, 64 under jax_enable_x64), ONE / ADD / FLAGS (the
//             kernel's + 1), Y / Y1 (what the kernel stores), MAJOR /
//             MINOR (the GPU's compute capability), VERSION
//             (stable_mosaic_gpu.version), ASYNC_OBJECT (", 0", gpu.launch's
//             asyncObject segment, from version 7), DUMP (the
//             mosaic_gpu.dump_basename entry, with its ", ", or nothing);
//   ?X        a line only when: A add_one; 1 / 2 one / two registers per
//             thread (N / (128 * PER)); W / N an element wider than / of one
//             byte; C a constant of the launch's cache, hoisted to the
//             top in the reverse order of first use: dropped, and its uses
//             renamed, when a later C line makes the same constant (the
//             grid's, when it is 1 or 128).
//
// The "tiled" section is JAX 0.10.2's module for tiled_add_one: an
// (R, C) array in (BR, BC) blocks over a (GR, GC) grid (launch grid x is
// GC, y is GR), and its own values: R, C, BR, BC, GR, GC, RC (R * C), N
// (BR * BC), DESC (the TMA descriptors' bytes: 128 each, one for the input,
// and one for the output unless the block is contiguous), and the lines:
//   ?D        only when BC < C and BR > 1 (the output's block is not
//             contiguous: a TMA store through its own descriptor);
//   ?B        only when BC == C or BR == 1 (the block is contiguous: a bulk
//             copy);
//   ?R        a run of these lines is repeated for each register of the
//             kernel (N / (128 * PER)), @I@ the register's number and @OFF@
//             its first element, I * 128 * PER;
//   ?K / ?O   only for an array of more than one row / of one row (R == 1),
//             whose TMA descriptor and copies JAX makes 1-D, the unit
//             dimension dropped (the ?O lines are the ?K lines before them
//             at rank 1).
// The "tiled-warpgroup" section is the seeds' JAX's (warpgroup semantics;
// taken from JAX 0.11.0, whose module differs from it only in
// stable_mosaic_gpu.version, as for the 1-D kernels), with the same values
// and lines, the ?C constants among them (the grid's, the block's and the
// array's dimensions), and:
//   ?X / ?Y   only with / without jax_enable_x64 (the constant 1 : i32 is
//             first used earlier);
//   ?E        only where the block copy's barrier arrive takes its byte
//             count (BYTES) as an i32 constant of the cache, which nothing
//             uses once the dialect is lowered (3549c1e3ba, JAX 0.11.1; in
//             the 1-D section too, with ?X / ?Y);
//   ?M / ?S   only for a block of more than one row / of one row (BR == 1,
//             whose row offset is the block index itself, not multiplied);
//   @[TEXT]@  TEXT once per register, @I@ its number, joined by ", " (the
//             registers gathered into the block's vector).
//! legacy
"builtin.module"() <{sym_name = "@KERNEL@"}> ({
  "func.func"() ({
  }) {function_type = (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> (), sym_name = "mosaic_gpu_init_tma_desc", sym_visibility = "private"} : () -> ()
  "llvm.mlir.global"() ({
  }) {addr_space = 4 : i32, global_type = !llvm.array<0 x i8>, linkage = #llvm.linkage<external>, sym_name = "global_scratch", visibility_ = 0 : i64} : () -> ()
  "func.func"() ({
  ^bb0(%arg0: !llvm.ptr, %arg1: !llvm.ptr):
    %0 = "builtin.unrealized_conversion_cast"(%arg0) : (!llvm.ptr) -> !gpu.async.token
    %1 = "llvm.getelementptr"(%arg1) {elem_type = !llvm.ptr, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    %2 = "llvm.load"(%1) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.ptr
    %3 = "llvm.mlir.undef"() : () -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %4 = "llvm.insertvalue"(%3, %2) {position = array<i64: 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %5 = "llvm.insertvalue"(%4, %2) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %6 = "llvm.mlir.constant"() {value = 0 : i64} : () -> i64
    %7 = "llvm.insertvalue"(%5, %6) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %8 = "llvm.mlir.constant"() {value = @N@ : i64} : () -> i64
    %9 = "llvm.insertvalue"(%7, %8) {position = array<i64: 3, 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %10 = "llvm.mlir.constant"() {value = 1 : i64} : () -> i64
    %11 = "llvm.insertvalue"(%9, %10) {position = array<i64: 4, 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %12 = "builtin.unrealized_conversion_cast"(%11) {mosaic_gpu.from_kernel_arg_idx = 0 : i32, mosaic_gpu.original_kernel_arg} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> memref<@N@x@T@>
    %13 = "llvm.getelementptr"(%arg1) {elem_type = !llvm.ptr, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
    %14 = "llvm.load"(%13) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.ptr
    %15 = "llvm.mlir.undef"() : () -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %16 = "llvm.insertvalue"(%15, %14) {position = array<i64: 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %17 = "llvm.insertvalue"(%16, %14) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %18 = "llvm.mlir.constant"() {value = 0 : i64} : () -> i64
    %19 = "llvm.insertvalue"(%17, %18) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %20 = "llvm.mlir.constant"() {value = @N@ : i64} : () -> i64
    %21 = "llvm.insertvalue"(%19, %20) {position = array<i64: 3, 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %22 = "llvm.mlir.constant"() {value = 1 : i64} : () -> i64
    %23 = "llvm.insertvalue"(%21, %22) {position = array<i64: 4, 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %24 = "builtin.unrealized_conversion_cast"(%23) {mosaic_gpu.from_kernel_arg_idx = 1 : i32, mosaic_gpu.original_kernel_arg} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> memref<@N@x@T@>
    %25 = "arith.constant"() {value = @G@ : index} : () -> index
    %26 = "arith.constant"() {value = 1 : index} : () -> index
    %27 = "arith.constant"() {value = 1 : index} : () -> index
    %28 = "arith.constant"() {value = 128 : index} : () -> index
    %29 = "arith.constant"() {value = 1 : index} : () -> index
    %30 = "arith.constant"() {value = 1 : index} : () -> index
    %31 = "arith.constant"() {value = @SMEM@ : i32} : () -> i32
    %32 = "arith.constant"() {value = 1 : i64} : () -> i64
    %33 = "llvm.alloca"(%32) {alignment = 64 : i64, elem_type = !llvm.array<128 x i8>, mosaic_gpu_smem_alloc} : (i64) -> !llvm.ptr
    %34 = "llvm.getelementptr"(%33) {elem_type = i8, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    %35 = "memref.reinterpret_cast"(%12) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@>) -> memref<@N@x@T@, strided<[1]>>
    %36:4 = "memref.extract_strided_metadata"(%35) : (memref<@N@x@T@, strided<[1]>>) -> (memref<@T@>, index, index, index)
    %37 = "memref.extract_aligned_pointer_as_index"(%35) : (memref<@N@x@T@, strided<[1]>>) -> index
    %38 = "arith.index_cast"(%37) : (index) -> i64
    %39 = "llvm.inttoptr"(%38) : (i64) -> !llvm.ptr
    %40 = "arith.index_cast"(%36#1) : (index) -> i64
    %41 = "llvm.getelementptr"(%39, %40) {elem_type = @T@, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr, i64) -> !llvm.ptr
    %42 = "arith.constant"() {value = @TMA@ : i64} : () -> i64
    %43 = "arith.constant"() {value = 1 : i64} : () -> i64
    %44 = "arith.index_cast"(%36#2) : (index) -> i64
    %45 = "arith.constant"() {value = 1 : i64} : () -> i64
    %46 = "llvm.alloca"(%45) {elem_type = i64} : (i64) -> !llvm.ptr
    %47 = "llvm.getelementptr"(%46) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%44, %47) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    %48 = "arith.index_cast"(%36#3) : (index) -> i64
    %49 = "arith.constant"() {value = 1 : i64} : () -> i64
    %50 = "llvm.alloca"(%49) {elem_type = i64} : (i64) -> !llvm.ptr
    %51 = "llvm.getelementptr"(%50) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%48, %51) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    %52 = "arith.constant"() {value = 16 : i64} : () -> i64
    %53 = "arith.constant"() {value = @N@ : i64} : () -> i64
    %54 = "arith.constant"() {value = 1 : i64} : () -> i64
    %55 = "llvm.alloca"(%54) {elem_type = i64} : (i64) -> !llvm.ptr
    %56 = "llvm.getelementptr"(%55) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%53, %56) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    "func.call"(%34, %41, %42, %43, %46, %50, %52, %55) {callee = @mosaic_gpu_init_tma_desc} : (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
    %57 = "llvm.load"(%33) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.array<128 x i8>
    %58 = "gpu.launch"(%0, %25, %26, %27, %28, %29, %30, %31) ({
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index, %arg13: index):
      %59 = "builtin.unrealized_conversion_cast"(%57) : (!llvm.array<128 x i8>) -> !llvm.ptr
      %60 = "llvm.getelementptr"(%59) {elem_type = i8, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
      %61 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %62 = "arith.constant"() {value = 0 : index} : () -> index
      %63 = "memref.view"(%61, %62) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<@AL2@xi8, #gpu.address_space<workgroup>>
      %64 = "arith.constant"() {value = @AL2@ : index} : () -> index
      %65 = "memref.view"(%61, %64) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1xi64, #gpu.address_space<workgroup>>
      %66 = "builtin.unrealized_conversion_cast"(%65) : (memref<1xi64, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
      %67 = "llvm.extractvalue"(%66) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
      %68 = "llvm.extractvalue"(%66) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %69 = "arith.constant"() {value = 8 : i64} : () -> i64
      %70 = "llvm.mul"(%68, %69) : (i64, i64) -> i64
      %71 = "llvm.ptrtoint"(%67) : (!llvm.ptr<3>) -> i64
      %72 = "llvm.add"(%71, %70) : (i64, i64) -> i64
      %73 = "llvm.inttoptr"(%72) : (i64) -> !llvm.ptr<3>
      %74 = "memref.alloca"() {operandSegmentSizes = array<i32: 0, 0>} : () -> memref<i32>
      %75 = "arith.constant"() {value = 0 : i32} : () -> i32
      "memref.store"(%75, %74) : (i32, memref<i32>) -> ()
      %76 = "nvvm.elect.sync"() : () -> i1
      %77 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %78 = "arith.index_cast"(%77) : (index) -> i32
      %79 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %80 = "arith.index_cast"(%79) : (index) -> i32
      %81 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %82 = "arith.index_cast"(%81) : (index) -> i32
      %83 = "arith.muli"(%82, %80) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %84 = "arith.addi"(%78, %83) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %85 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %86 = "arith.index_cast"(%85) : (index) -> i32
      %87 = "arith.muli"(%80, %86) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %88 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %89 = "arith.index_cast"(%88) : (index) -> i32
      %90 = "arith.muli"(%89, %87) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %91 = "arith.addi"(%84, %90) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %92 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %93 = "arith.index_cast"(%92) : (index) -> i32
      %94 = "arith.muli"(%87, %93) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %95 = "arith.constant"() {value = 5 : i32} : () -> i32
      %96 = "arith.shrui"(%91, %95) : (i32, i32) -> i32
      %97 = "arith.constant"() {value = -1 : i32} : () -> i32
      %98 = "arith.constant"() {value = 0 : i32} : () -> i32
      %99 = "arith.constant"() {value = 31 : i32} : () -> i32
      %100 = "nvvm.shfl.sync"(%97, %96, %98, %99) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %101 = "arith.constant"() {value = 0 : i32} : () -> i32
      %102 = "arith.cmpi"(%100, %101) {predicate = 0 : i64} : (i32, i32) -> i1
      %103 = "arith.andi"(%102, %76) : (i1, i1) -> i1
      %104 = "llvm.getelementptr"(%73) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr<3>) -> !llvm.ptr<3>
      %105 = "arith.constant"() {value = 128 : i32} : () -> i32
      "nvvm.mbarrier.init"(%104, %105, %103) : (!llvm.ptr<3>, i32, i1) -> ()
      %106 = "arith.constant"() {value = 0 : i32} : () -> i32
      "nvvm.fence.mbarrier.init"() : () -> ()
      "gpu.barrier"() {scope = #gpu.barrier_scope<workgroup>} : () -> ()
      %107 = "nvvm.elect.sync"() : () -> i1
      %108 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %109 = "arith.index_cast"(%108) : (index) -> i32
      %110 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %111 = "arith.index_cast"(%110) : (index) -> i32
      %112 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %113 = "arith.index_cast"(%112) : (index) -> i32
      %114 = "arith.muli"(%113, %111) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %115 = "arith.addi"(%109, %114) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %116 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %117 = "arith.index_cast"(%116) : (index) -> i32
      %118 = "arith.muli"(%111, %117) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %119 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %120 = "arith.index_cast"(%119) : (index) -> i32
      %121 = "arith.muli"(%120, %118) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %122 = "arith.addi"(%115, %121) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %123 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %124 = "arith.index_cast"(%123) : (index) -> i32
      %125 = "arith.muli"(%118, %124) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %126 = "arith.constant"() {value = 5 : i32} : () -> i32
      %127 = "arith.shrui"(%122, %126) : (i32, i32) -> i32
      %128 = "arith.constant"() {value = -1 : i32} : () -> i32
      %129 = "arith.constant"() {value = 0 : i32} : () -> i32
      %130 = "arith.constant"() {value = 31 : i32} : () -> i32
      %131 = "nvvm.shfl.sync"(%128, %127, %129, %130) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %132 = "arith.constant"() {value = 4 : i32} : () -> i32
      %133 = "arith.remui"(%131, %132) : (i32, i32) -> i32
      %134 = "arith.constant"() {value = 0 : i32} : () -> i32
      %135 = "arith.cmpi"(%133, %134) {predicate = 0 : i64} : (i32, i32) -> i1
      %136 = "arith.andi"(%135, %107) : (i1, i1) -> i1
      %137 = "nvvm.elect.sync"() : () -> i1
      %138 = "gpu.block_id"() {dimension = #gpu<dim x>} : () -> index
      %139 = "arith.index_cast"(%138) : (index) -> i32
      %140 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %141 = "arith.constant"() {value = 0 : index} : () -> index
      %142 = "memref.view"(%140, %141) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1x@N@x@T@, #gpu.address_space<workgroup>>
      %143 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %144 = "arith.constant"() {value = @AL@ : index} : () -> index
      %145 = "memref.view"(%143, %144) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1x@N@x@T@, #gpu.address_space<workgroup>>
      %146 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %147 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %148 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %149 = "arith.muli"(%147, %148) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %150 = "arith.addi"(%149, %146) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %151 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %152 = "arith.addi"(%150, %151) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %153 = "arith.index_cast"(%152) : (i@IW@) -> index
      %154 = "memref.subview"(%142, %153) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 1, @N@>, static_strides = array<i64: 1, 1>} : (memref<1x@N@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %155 = "arith.index_cast"(%152) : (i@IW@) -> index
      %156 = "arith.constant"() {value = 1 : index} : () -> index
      %157 = "arith.muli"(%155, %156) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %158 = "arith.index_castui"(%157) : (index) -> i32
      %159 = "arith.addi"(%106, %158) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %160 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %161 = "arith.index_cast"(%160) : (index) -> i32
      %162 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %163 = "arith.index_cast"(%162) : (index) -> i32
      %164 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %165 = "arith.index_cast"(%164) : (index) -> i32
      %166 = "arith.muli"(%165, %163) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %167 = "arith.addi"(%161, %166) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %168 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %169 = "arith.index_cast"(%168) : (index) -> i32
      %170 = "arith.muli"(%163, %169) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %171 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %172 = "arith.index_cast"(%171) : (index) -> i32
      %173 = "arith.muli"(%172, %170) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %174 = "arith.addi"(%167, %173) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %175 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %176 = "arith.index_cast"(%175) : (index) -> i32
      %177 = "arith.muli"(%170, %176) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %178 = "arith.constant"() {value = 7 : i32} : () -> i32
      %179 = "arith.shrui"(%174, %178) : (i32, i32) -> i32
      %180 = "arith.constant"() {value = 1 : i32} : () -> i32
      %181 = "arith.addi"(%179, %180) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %182 = "llvm.inline_asm"(%181) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %183 = "arith.constant"() {value = @TX@ : i32} : () -> i32
      %184 = "llvm.getelementptr"(%73, %159) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
      %185 = "nvvm.mbarrier.arrive.expect_tx"(%184, %183) {relaxed = false, scope = #nvvm.mem_scope<cta>} : (!llvm.ptr<3>, i32) -> i64
      %186 = "arith.constant"() {value = 0 : index} : () -> index
      %187:4 = "memref.extract_strided_metadata"(%154) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index)
      %188 = "memref.reinterpret_cast"(%154, %187#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %189 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
      %190 = "builtin.unrealized_conversion_cast"(%188) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
      %191 = "llvm.extractvalue"(%190) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
      %192 = "llvm.extractvalue"(%190) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %193 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %194 = "llvm.mul"(%192, %193) : (i64, i64) -> i64
      %195 = "llvm.ptrtoint"(%191) : (!llvm.ptr<3>) -> i64
      %196 = "llvm.add"(%195, %194) : (i64, i64) -> i64
      %197 = "llvm.inttoptr"(%196) : (i64) -> !llvm.ptr<3>
      %198 = "memref.reinterpret_cast"(%12) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@>) -> memref<@N@x@T@, strided<[1]>>
      %199 = "arith.index_cast"(%186) : (index) -> i32
      %200 = "llvm.getelementptr"(%73, %159) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
      "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%197, %60, %199, %200, %136) {isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1>} : (!llvm.ptr<3>, !llvm.ptr, i32, !llvm.ptr<3>, i1) -> ()
      %201 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %202 = "arith.addi"(%146, %201) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %203 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %204 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %205 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %206 = "arith.muli"(%204, %205) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %207 = "arith.addi"(%206, %203) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %208 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %209 = "arith.addi"(%207, %208) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %210 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %211 = "arith.remsi"(%209, %210) : (i@IW@, i@IW@) -> i@IW@
      %212 = "arith.index_cast"(%211) : (i@IW@) -> index
      %213 = "arith.constant"() {value = 1 : index} : () -> index
      %214 = "arith.muli"(%212, %213) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %215 = "arith.index_castui"(%214) : (index) -> i32
      %216 = "arith.addi"(%106, %215) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %217 = "memref.load"(%74) : (memref<i32>) -> i32
      %218 = "arith.constant"() {value = 1 : i32} : () -> i32
      %219 = "arith.shli"(%218, %216) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %220 = "arith.andi"(%217, %219) : (i32, i32) -> i32
      %221 = "arith.constant"() {value = 0 : i32} : () -> i32
      %222 = "arith.cmpi"(%220, %221) {predicate = 1 : i64} : (i32, i32) -> i1
      %223 = "arith.xori"(%217, %219) : (i32, i32) -> i32
      "memref.store"(%223, %74) : (i32, memref<i32>) -> ()
      %224 = "arith.constant"() {value = 10000000 : i32} : () -> i32
      %225 = "arith.extui"(%222) : (i1) -> i32
      %226 = "llvm.getelementptr"(%73, %216) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
      "nvvm.mbarrier.try_wait.parity"(%226, %225, %224) : (!llvm.ptr<3>, i32, i32) -> ()
      %227 = "arith.index_cast"(%211) : (i@IW@) -> index
      %228 = "memref.subview"(%142, %227) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 1, @N@>, static_strides = array<i64: 1, 1>} : (memref<1x@N@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %229 = "arith.index_cast"(%211) : (i@IW@) -> index
      %230 = "memref.subview"(%145, %229) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 1, @N@>, static_strides = array<i64: 1, 1>} : (memref<1x@N@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %231 = "gpu.block_id"() {dimension = #gpu<dim x>} : () -> index
      %232 = "arith.index_cast"(%231) : (index) -> i32
      %233 = "memref.collapse_shape"(%228) {reassociation = [[0]]} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %234 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %235 = "arith.constant"() {value = 128 : index} : () -> index
      %236 = "arith.remui"(%234, %235) : (index, index) -> index
      %237 = "arith.constant"() {value = @PER@ : index} : () -> index
      %238 = "arith.muli"(%236, %237) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %239 = "arith.constant"() {value = 0 : index} : () -> index
      %240 = "arith.addi"(%238, %239) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %x0 = "vector.load"(%233, %240) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> vector<@PER@x@T@>
?2      %x1o = "arith.constant"() {value = 128 : index} : () -> index
?2      %x1i = "arith.addi"(%238, %x1o) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?2      %x1 = "vector.load"(%233, %x1i) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> vector<@PER@x@T@>
?A      %242 = "arith.constant"() {value = @ONE@} : () -> @T@
?A      %243 = "vector.broadcast"(%242) : (@T@) -> vector<@PER@x@T@>
?A      %y0 = "arith.@ADD@"(%x0, %243) {@FLAGS@} : (vector<@PER@x@T@>, vector<@PER@x@T@>) -> vector<@PER@x@T@>
?A?2      %y1 = "arith.@ADD@"(%x1, %243) {@FLAGS@} : (vector<@PER@x@T@>, vector<@PER@x@T@>) -> vector<@PER@x@T@>
      %245 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %246 = "arith.index_cast"(%245) : (index) -> i32
      %247 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %248 = "arith.index_cast"(%247) : (index) -> i32
      %249 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %250 = "arith.index_cast"(%249) : (index) -> i32
      %251 = "arith.muli"(%250, %248) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %252 = "arith.addi"(%246, %251) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %253 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %254 = "arith.index_cast"(%253) : (index) -> i32
      %255 = "arith.muli"(%248, %254) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %256 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %257 = "arith.index_cast"(%256) : (index) -> i32
      %258 = "arith.muli"(%257, %255) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %259 = "arith.addi"(%252, %258) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %260 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %261 = "arith.index_cast"(%260) : (index) -> i32
      %262 = "arith.muli"(%255, %261) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %263 = "arith.constant"() {value = 7 : i32} : () -> i32
      %264 = "arith.shrui"(%259, %263) : (i32, i32) -> i32
      %265 = "arith.constant"() {value = 1 : i32} : () -> i32
      %266 = "arith.addi"(%264, %265) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %267 = "llvm.inline_asm"(%266) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %268 = "memref.collapse_shape"(%230) {reassociation = [[0]]} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %269 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %270 = "arith.constant"() {value = 128 : index} : () -> index
      %271 = "arith.remui"(%269, %270) : (index, index) -> index
      %272 = "arith.constant"() {value = @PER@ : index} : () -> index
      %273 = "arith.muli"(%271, %272) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %274 = "arith.constant"() {value = 0 : index} : () -> index
      %275 = "arith.addi"(%273, %274) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %276 = "vector.load"(%268, %275) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> vector<@PER@x@T@>
?2      %o1o = "arith.constant"() {value = 128 : index} : () -> index
?2      %o1i = "arith.addi"(%273, %o1o) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?2      %o1 = "vector.load"(%268, %o1i) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> vector<@PER@x@T@>
      %277 = "memref.collapse_shape"(%230) {reassociation = [[0]]} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %278 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %279 = "arith.constant"() {value = 128 : index} : () -> index
      %280 = "arith.remui"(%278, %279) : (index, index) -> index
      %281 = "arith.constant"() {value = @PER@ : index} : () -> index
      %282 = "arith.muli"(%280, %281) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %283 = "arith.constant"() {value = 0 : index} : () -> index
      %284 = "arith.addi"(%282, %283) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      "vector.store"(@Y@, %277, %284) : (vector<@PER@x@T@>, memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> ()
?2      %s1o = "arith.constant"() {value = 128 : index} : () -> index
?2      %s1i = "arith.addi"(%282, %s1o) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?2      "vector.store"(@Y1@, %277, %s1i) : (vector<@PER@x@T@>, memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> ()
      %285 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %286 = "arith.index_cast"(%285) : (index) -> i32
      %287 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %288 = "arith.index_cast"(%287) : (index) -> i32
      %289 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %290 = "arith.index_cast"(%289) : (index) -> i32
      %291 = "arith.muli"(%290, %288) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %292 = "arith.addi"(%286, %291) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %293 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %294 = "arith.index_cast"(%293) : (index) -> i32
      %295 = "arith.muli"(%288, %294) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %296 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %297 = "arith.index_cast"(%296) : (index) -> i32
      %298 = "arith.muli"(%297, %295) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %299 = "arith.addi"(%292, %298) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %300 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %301 = "arith.index_cast"(%300) : (index) -> i32
      %302 = "arith.muli"(%295, %301) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %303 = "arith.constant"() {value = 7 : i32} : () -> i32
      %304 = "arith.shrui"(%299, %303) : (i32, i32) -> i32
      %305 = "arith.constant"() {value = 1 : i32} : () -> i32
      %306 = "arith.addi"(%304, %305) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %307 = "llvm.inline_asm"(%306) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %308 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %309 = "arith.addi"(%209, %308) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %310 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %311 = "arith.remsi"(%309, %310) : (i@IW@, i@IW@) -> i@IW@
      %312 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %313 = "arith.cmpi"(%209, %312) {predicate = 5 : i64} : (i@IW@, i@IW@) -> i1
      %314 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %315 = "arith.cmpi"(%309, %314) {predicate = 2 : i64} : (i@IW@, i@IW@) -> i1
      %316 = "arith.andi"(%313, %315) : (i1, i1) -> i1
      %317 = "arith.extui"(%316) : (i1) -> i32
      %318 = "arith.index_cast"(%317) : (i32) -> index
      "scf.index_switch"(%318) ({
        %404 = "arith.index_cast"(%311) : (i@IW@) -> index
        %405 = "memref.subview"(%142, %404) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 1, @N@>, static_strides = array<i64: 1, 1>} : (memref<1x@N@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
        %406 = "arith.index_cast"(%311) : (i@IW@) -> index
        %407 = "arith.constant"() {value = 1 : index} : () -> index
        %408 = "arith.muli"(%406, %407) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
        %409 = "arith.index_castui"(%408) : (index) -> i32
        %410 = "arith.addi"(%106, %409) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %411 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
        %412 = "arith.index_cast"(%411) : (index) -> i32
        %413 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
        %414 = "arith.index_cast"(%413) : (index) -> i32
        %415 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
        %416 = "arith.index_cast"(%415) : (index) -> i32
        %417 = "arith.muli"(%416, %414) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %418 = "arith.addi"(%412, %417) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %419 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
        %420 = "arith.index_cast"(%419) : (index) -> i32
        %421 = "arith.muli"(%414, %420) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %422 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
        %423 = "arith.index_cast"(%422) : (index) -> i32
        %424 = "arith.muli"(%423, %421) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %425 = "arith.addi"(%418, %424) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %426 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
        %427 = "arith.index_cast"(%426) : (index) -> i32
        %428 = "arith.muli"(%421, %427) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %429 = "arith.constant"() {value = 7 : i32} : () -> i32
        %430 = "arith.shrui"(%425, %429) : (i32, i32) -> i32
        %431 = "arith.constant"() {value = 1 : i32} : () -> i32
        %432 = "arith.addi"(%430, %431) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %433 = "llvm.inline_asm"(%432) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
        %434 = "arith.constant"() {value = @TX@ : i32} : () -> i32
        %435 = "llvm.getelementptr"(%73, %410) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
        %436 = "nvvm.mbarrier.arrive.expect_tx"(%435, %434) {relaxed = false, scope = #nvvm.mem_scope<cta>} : (!llvm.ptr<3>, i32) -> i64
        %437 = "arith.constant"() {value = 0 : index} : () -> index
        %438:4 = "memref.extract_strided_metadata"(%405) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index)
        %439 = "memref.reinterpret_cast"(%405, %438#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
        %440 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
        %441 = "builtin.unrealized_conversion_cast"(%439) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
        %442 = "llvm.extractvalue"(%441) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
        %443 = "llvm.extractvalue"(%441) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
        %444 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
        %445 = "llvm.mul"(%443, %444) : (i64, i64) -> i64
        %446 = "llvm.ptrtoint"(%442) : (!llvm.ptr<3>) -> i64
        %447 = "llvm.add"(%446, %445) : (i64, i64) -> i64
        %448 = "llvm.inttoptr"(%447) : (i64) -> !llvm.ptr<3>
        %449 = "memref.reinterpret_cast"(%12) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@>) -> memref<@N@x@T@, strided<[1]>>
        %450 = "arith.index_cast"(%437) : (index) -> i32
        %451 = "llvm.getelementptr"(%73, %410) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
        "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%448, %60, %450, %451, %136) {isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1>} : (!llvm.ptr<3>, !llvm.ptr, i32, !llvm.ptr<3>, i1) -> ()
        "scf.yield"() : () -> ()
      }, {
        "scf.yield"() : () -> ()
      }) {cases = array<i64: 0>} : (index) -> ()
      %319 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %320 = "arith.addi"(%203, %319) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      "nvvm.fence.proxy"() {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>} : () -> ()
      %321 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %322 = "arith.index_cast"(%321) : (index) -> i32
      %323 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %324 = "arith.index_cast"(%323) : (index) -> i32
      %325 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %326 = "arith.index_cast"(%325) : (index) -> i32
      %327 = "arith.muli"(%326, %324) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %328 = "arith.addi"(%322, %327) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %329 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %330 = "arith.index_cast"(%329) : (index) -> i32
      %331 = "arith.muli"(%324, %330) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %332 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %333 = "arith.index_cast"(%332) : (index) -> i32
      %334 = "arith.muli"(%333, %331) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %335 = "arith.addi"(%328, %334) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %336 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %337 = "arith.index_cast"(%336) : (index) -> i32
      %338 = "arith.muli"(%331, %337) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %339 = "arith.constant"() {value = 7 : i32} : () -> i32
      %340 = "arith.shrui"(%335, %339) : (i32, i32) -> i32
      %341 = "arith.constant"() {value = 1 : i32} : () -> i32
      %342 = "arith.addi"(%340, %341) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %343 = "llvm.inline_asm"(%342) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %344 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %345 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %346 = "arith.remsi"(%344, %345) : (i@IW@, i@IW@) -> i@IW@
      %347 = "arith.index_cast"(%346) : (i@IW@) -> index
      %348 = "memref.subview"(%145, %347) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 1, @N@>, static_strides = array<i64: 1, 1>} : (memref<1x@N@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %349 = "arith.constant"() {value = 0 : index} : () -> index
      %350:4 = "memref.extract_strided_metadata"(%348) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index)
      %351 = "memref.reinterpret_cast"(%348, %350#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %352 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
      %353 = "builtin.unrealized_conversion_cast"(%351) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
      %354 = "llvm.extractvalue"(%353) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
      %355 = "llvm.extractvalue"(%353) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %356 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %357 = "llvm.mul"(%355, %356) : (i64, i64) -> i64
      %358 = "llvm.ptrtoint"(%354) : (!llvm.ptr<3>) -> i64
      %359 = "llvm.add"(%358, %357) : (i64, i64) -> i64
      %360 = "llvm.inttoptr"(%359) : (i64) -> !llvm.ptr<3>
      %361 = "memref.reinterpret_cast"(%24) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@>) -> memref<@N@x@T@, strided<[1]>>
      %362 = "memref.subview"(%361, %349) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@, strided<[1]>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>>
      %363 = "builtin.unrealized_conversion_cast"(%362) : (memref<@N@x@T@, strided<[1], offset: ?>>) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %364 = "llvm.extractvalue"(%363) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr
      %365 = "llvm.extractvalue"(%363) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %366 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %367 = "llvm.mul"(%365, %366) : (i64, i64) -> i64
      %368 = "llvm.ptrtoint"(%364) : (!llvm.ptr) -> i64
      %369 = "llvm.add"(%368, %367) : (i64, i64) -> i64
      %370 = "llvm.inttoptr"(%369) : (i64) -> !llvm.ptr
      %371 = "arith.constant"() {value = @N@ : index} : () -> index
      %372:4 = "memref.extract_strided_metadata"(%362) : (memref<@N@x@T@, strided<[1], offset: ?>>) -> (memref<@T@>, index, index, index)
      %373 = "arith.minui"(%372#1, %371) : (index, index) -> index
      %374 = "arith.subi"(%371, %373) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?W      %375 = "arith.constant"() {value = @ISZ@ : index} : () -> index
?W      %376 = "arith.muli"(%374, %375) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %377 = "arith.index_cast"(%352) : (i32) -> index
?W      %378 = "arith.minui"(%377, %376) : (index, index) -> index
?N      %378 = "arith.minui"(%377, %374) : (index, index) -> index
      %379 = "arith.index_cast"(%378) : (index) -> i32
      %380 = "llvm.inline_asm"(%136, %370, %360, %379) {asm_string = "\0A          @$0 cp.async.bulk.global.shared::cta.bulk_group [$1], [$2], $3;\0A          ", constraints = "b,l,l,r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i1, !llvm.ptr, !llvm.ptr<3>, i32) -> !llvm.void
      "nvvm.cp.async.bulk.commit.group"() : () -> ()
      "nvvm.cp.async.bulk.wait_group"() {group = 0 : i32} : () -> ()
      %381 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %382 = "arith.index_cast"(%381) : (index) -> i32
      %383 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %384 = "arith.index_cast"(%383) : (index) -> i32
      %385 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %386 = "arith.index_cast"(%385) : (index) -> i32
      %387 = "arith.muli"(%386, %384) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %388 = "arith.addi"(%382, %387) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %389 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %390 = "arith.index_cast"(%389) : (index) -> i32
      %391 = "arith.muli"(%384, %390) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %392 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %393 = "arith.index_cast"(%392) : (index) -> i32
      %394 = "arith.muli"(%393, %391) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %395 = "arith.addi"(%388, %394) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %396 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %397 = "arith.index_cast"(%396) : (index) -> i32
      %398 = "arith.muli"(%391, %397) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %399 = "arith.constant"() {value = 7 : i32} : () -> i32
      %400 = "arith.shrui"(%395, %399) : (i32, i32) -> i32
      %401 = "arith.constant"() {value = 1 : i32} : () -> i32
      %402 = "arith.addi"(%400, %401) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %403 = "llvm.inline_asm"(%402) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      "gpu.terminator"() : () -> ()
    }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1@ASYNC_OBJECT@>} : (!gpu.async.token, index, index, index, index, index, index, i32) -> !gpu.async.token
    "func.return"() : () -> ()
  }) {function_type = (!llvm.ptr, !llvm.ptr) -> (), llvm.emit_c_interface, sym_name = "@KERNEL@_mosaic_gpu"} : () -> ()
}) {mosaic_gpu.arch_major = @MAJOR@ : i32, mosaic_gpu.arch_minor = @MINOR@ : i32, @DUMP@stable_mosaic_gpu.version = @VERSION@ : i64} : () -> ()
//! warpgroup
"builtin.module"() <{sym_name = "@KERNEL@"}> ({
  "func.func"() ({
  }) {function_type = (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> (), sym_name = "mosaic_gpu_init_tma_desc", sym_visibility = "private"} : () -> ()
  "llvm.mlir.global"() ({
  }) {addr_space = 4 : i32, global_type = !llvm.array<0 x i8>, linkage = #llvm.linkage<external>, sym_name = "global_scratch", visibility_ = 0 : i64} : () -> ()
  "func.func"() ({
  ^bb0(%arg0: !llvm.ptr, %arg1: !llvm.ptr):
?A    %0 = "arith.constant"() {value = @ONE@} : () -> @T@
?A    %1 = "builtin.unrealized_conversion_cast"(%0) {layout = #mosaic_gpu.WGSplatFragLayout<[@N@]>} : (@T@) -> vector<@N@x@T@>
?C    %2 = "arith.constant"() {value = 7 : i32} : () -> i32
?C    %3 = "arith.constant"() {value = 10000000 : i32} : () -> i32
?Y?E?C    %e4 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
?C    %4 = "arith.constant"() {value = 1 : i32} : () -> i32
?X?E?C    %e4 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
?C    %5 = "arith.constant"() {value = 31 : i32} : () -> i32
?C    %6 = "arith.constant"() {value = -1 : i32} : () -> i32
?C    %7 = "arith.constant"() {value = 5 : i32} : () -> i32
?C    %8 = "arith.constant"() {value = 0 : i32} : () -> i32
?C    %9 = "arith.constant"() {value = 8 : i64} : () -> i64
?C    %10 = "arith.constant"() {value = @SMEM@ : i32} : () -> i32
?C    %11 = "arith.constant"() {value = 128 : index} : () -> index
?C    %12 = "arith.constant"() {value = 1 : index} : () -> index
?C    %13 = "arith.constant"() {value = @G@ : index} : () -> index
?C    %14 = "llvm.mlir.constant"() {value = 1 : i64} : () -> i64
?C    %15 = "llvm.mlir.constant"() {value = @N@ : i64} : () -> i64
?C    %16 = "llvm.mlir.constant"() {value = 0 : i64} : () -> i64
    %17 = "llvm.mlir.undef"() : () -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %18 = "builtin.unrealized_conversion_cast"(%arg0) : (!llvm.ptr) -> !gpu.async.token
    %19 = "llvm.load"(%arg1) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.ptr
    %20 = "llvm.insertvalue"(%17, %19) {position = array<i64: 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %21 = "llvm.insertvalue"(%20, %19) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %22 = "llvm.insertvalue"(%21, %16) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %23 = "llvm.insertvalue"(%22, %15) {position = array<i64: 3, 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %24 = "llvm.insertvalue"(%23, %14) {position = array<i64: 4, 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %25 = "builtin.unrealized_conversion_cast"(%24) {mosaic_gpu.from_kernel_arg_idx = 0 : i32, mosaic_gpu.original_kernel_arg} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> memref<@N@x@T@>
    %26 = "llvm.getelementptr"(%arg1) {elem_type = !llvm.ptr, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
    %27 = "llvm.load"(%26) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.ptr
    %28 = "llvm.insertvalue"(%17, %27) {position = array<i64: 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %29 = "llvm.insertvalue"(%28, %27) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %30 = "llvm.insertvalue"(%29, %16) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %31 = "llvm.insertvalue"(%30, %15) {position = array<i64: 3, 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %32 = "llvm.insertvalue"(%31, %14) {position = array<i64: 4, 0>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %33 = "builtin.unrealized_conversion_cast"(%32) {mosaic_gpu.from_kernel_arg_idx = 1 : i32, mosaic_gpu.original_kernel_arg} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> memref<@N@x@T@>
    %34 = "arith.constant"() {value = 1 : i64} : () -> i64
    %35 = "llvm.alloca"(%34) {alignment = 64 : i64, elem_type = !llvm.array<128 x i8>, mosaic_gpu_smem_alloc} : (i64) -> !llvm.ptr
    %36 = "llvm.getelementptr"(%35) {elem_type = i8, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    %37 = "memref.reinterpret_cast"(%25) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@>) -> memref<@N@x@T@, strided<[1]>>
    %38:4 = "memref.extract_strided_metadata"(%37) : (memref<@N@x@T@, strided<[1]>>) -> (memref<@T@>, index, index, index)
    %39 = "memref.extract_aligned_pointer_as_index"(%37) : (memref<@N@x@T@, strided<[1]>>) -> index
    %40 = "arith.index_cast"(%39) : (index) -> i64
    %41 = "llvm.inttoptr"(%40) : (i64) -> !llvm.ptr
    %42 = "arith.index_cast"(%38#1) : (index) -> i64
    %43 = "llvm.getelementptr"(%41, %42) {elem_type = @T@, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr, i64) -> !llvm.ptr
    %44 = "arith.constant"() {value = @TMA@ : i64} : () -> i64
    %45 = "arith.constant"() {value = 1 : i64} : () -> i64
    %46 = "arith.index_cast"(%38#2) : (index) -> i64
    %47 = "arith.constant"() {value = 1 : i64} : () -> i64
    %48 = "llvm.alloca"(%47) {elem_type = i64} : (i64) -> !llvm.ptr
    %49 = "llvm.getelementptr"(%48) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%46, %49) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    %50 = "arith.index_cast"(%38#3) : (index) -> i64
    %51 = "arith.constant"() {value = 1 : i64} : () -> i64
    %52 = "llvm.alloca"(%51) {elem_type = i64} : (i64) -> !llvm.ptr
    %53 = "llvm.getelementptr"(%52) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%50, %53) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    %54 = "arith.constant"() {value = 16 : i64} : () -> i64
    %55 = "arith.constant"() {value = @N@ : i64} : () -> i64
    %56 = "arith.constant"() {value = 1 : i64} : () -> i64
    %57 = "llvm.alloca"(%56) {elem_type = i64} : (i64) -> !llvm.ptr
    %58 = "llvm.getelementptr"(%57) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%55, %58) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    "func.call"(%36, %43, %44, %45, %48, %52, %54, %57) {callee = @mosaic_gpu_init_tma_desc} : (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
    %59 = "llvm.load"(%35) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.array<128 x i8>
    %60 = "gpu.launch"(%18, %13, %12, %12, %11, %12, %12, %10) ({
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index, %arg13: index):
      %61 = "builtin.unrealized_conversion_cast"(%59) : (!llvm.array<128 x i8>) -> !llvm.ptr
      %62 = "llvm.getelementptr"(%61) {elem_type = i8, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
      %63 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %64 = "arith.index_cast"(%63) : (index) -> i32
      %65 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %66 = "arith.index_cast"(%65) : (index) -> i32
      %67 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %68 = "arith.index_cast"(%67) : (index) -> i32
      %69 = "arith.muli"(%68, %66) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %70 = "arith.addi"(%64, %69) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %71 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %72 = "arith.index_cast"(%71) : (index) -> i32
      %73 = "arith.muli"(%66, %72) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %74 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %75 = "arith.index_cast"(%74) : (index) -> i32
      %76 = "arith.muli"(%75, %73) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %77 = "arith.addi"(%70, %76) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %78 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %79 = "arith.index_cast"(%78) : (index) -> i32
      %80 = "arith.muli"(%73, %79) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %81 = "arith.constant"() {value = 5 : i32} : () -> i32
      %82 = "arith.shrui"(%77, %81) : (i32, i32) -> i32
      %83 = "arith.constant"() {value = 0 : i32} : () -> i32
      %84 = "arith.cmpi"(%82, %83) {predicate = 0 : i64} : (i32, i32) -> i1
      %85 = "nvvm.elect.sync"() : () -> i1
      %86 = "nvvm.elect.sync"() : () -> i1
      %87 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %88 = "arith.index_cast"(%87) : (index) -> i32
      %89 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %90 = "arith.index_cast"(%89) : (index) -> i32
      %91 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %92 = "arith.index_cast"(%91) : (index) -> i32
      %93 = "arith.muli"(%92, %90) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %94 = "arith.addi"(%88, %93) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %95 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %96 = "arith.index_cast"(%95) : (index) -> i32
      %97 = "arith.muli"(%90, %96) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %98 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %99 = "arith.index_cast"(%98) : (index) -> i32
      %100 = "arith.muli"(%99, %97) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %101 = "arith.addi"(%94, %100) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %102 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %103 = "arith.index_cast"(%102) : (index) -> i32
      %104 = "arith.muli"(%97, %103) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %105 = "arith.constant"() {value = 5 : i32} : () -> i32
      %106 = "arith.shrui"(%101, %105) : (i32, i32) -> i32
      %107 = "arith.constant"() {value = -1 : i32} : () -> i32
      %108 = "arith.constant"() {value = 0 : i32} : () -> i32
      %109 = "arith.constant"() {value = 31 : i32} : () -> i32
      %110 = "nvvm.shfl.sync"(%107, %106, %108, %109) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %111 = "arith.constant"() {value = 4 : i32} : () -> i32
      %112 = "arith.remui"(%110, %111) : (i32, i32) -> i32
      %113 = "arith.constant"() {value = 0 : i32} : () -> i32
      %114 = "arith.cmpi"(%112, %113) {predicate = 0 : i64} : (i32, i32) -> i1
      %115 = "arith.andi"(%114, %86) : (i1, i1) -> i1
      %116 = "nvvm.elect.sync"() : () -> i1
      %117 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %118 = "arith.index_cast"(%117) : (index) -> i32
      %119 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %120 = "arith.index_cast"(%119) : (index) -> i32
      %121 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %122 = "arith.index_cast"(%121) : (index) -> i32
      %123 = "arith.muli"(%122, %120) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %124 = "arith.addi"(%118, %123) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %125 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %126 = "arith.index_cast"(%125) : (index) -> i32
      %127 = "arith.muli"(%120, %126) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %128 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %129 = "arith.index_cast"(%128) : (index) -> i32
      %130 = "arith.muli"(%129, %127) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %131 = "arith.addi"(%124, %130) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %132 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %133 = "arith.index_cast"(%132) : (index) -> i32
      %134 = "arith.muli"(%127, %133) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %135 = "arith.constant"() {value = 5 : i32} : () -> i32
      %136 = "arith.shrui"(%131, %135) : (i32, i32) -> i32
      %137 = "arith.constant"() {value = -1 : i32} : () -> i32
      %138 = "arith.constant"() {value = 0 : i32} : () -> i32
      %139 = "arith.constant"() {value = 31 : i32} : () -> i32
      %140 = "nvvm.shfl.sync"(%137, %136, %138, %139) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %141 = "arith.constant"() {value = 0 : i32} : () -> i32
      %142 = "arith.cmpi"(%140, %141) {predicate = 0 : i64} : (i32, i32) -> i1
      %143 = "arith.andi"(%142, %116) : (i1, i1) -> i1
      %144 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %145 = "arith.constant"() {value = @AL2@ : index} : () -> index
      %146 = "memref.view"(%144, %145) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1xi64, #gpu.address_space<workgroup>>
      %147 = "builtin.unrealized_conversion_cast"(%146) : (memref<1xi64, #gpu.address_space<workgroup>>) -> memref<1x!mosaic_gpu.barrier, #gpu.address_space<workgroup>>
      %148 = "builtin.unrealized_conversion_cast"(%147) : (memref<1x!mosaic_gpu.barrier, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
      %149 = "llvm.extractvalue"(%148) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
      %150 = "llvm.extractvalue"(%148) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %151 = "llvm.mul"(%150, %9) : (i64, i64) -> i64
      %152 = "llvm.ptrtoint"(%149) : (!llvm.ptr<3>) -> i64
      %153 = "llvm.add"(%152, %151) : (i64, i64) -> i64
      %154 = "llvm.inttoptr"(%153) : (i64) -> !llvm.ptr<3>
      %155 = "llvm.getelementptr"(%154) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr<3>) -> !llvm.ptr<3>
      %156 = "arith.constant"() {value = 128 : i32} : () -> i32
      "nvvm.mbarrier.init"(%155, %156, %143) : (!llvm.ptr<3>, i32, i1) -> ()
      %157 = "memref.alloca"() {operandSegmentSizes = array<i32: 0, 0>} : () -> memref<i32>
      "memref.store"(%8, %157) : (i32, memref<i32>) -> ()
      "nvvm.fence.mbarrier.init"() : () -> ()
      "gpu.barrier"() {scope = #gpu.barrier_scope<workgroup>} : () -> ()
      %158 = "nvvm.elect.sync"() : () -> i1
      %159 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %160 = "arith.index_cast"(%159) : (index) -> i32
      %161 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %162 = "arith.index_cast"(%161) : (index) -> i32
      %163 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %164 = "arith.index_cast"(%163) : (index) -> i32
      %165 = "arith.muli"(%164, %162) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %166 = "arith.addi"(%160, %165) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %167 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %168 = "arith.index_cast"(%167) : (index) -> i32
      %169 = "arith.muli"(%162, %168) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %170 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %171 = "arith.index_cast"(%170) : (index) -> i32
      %172 = "arith.muli"(%171, %169) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %173 = "arith.addi"(%166, %172) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %174 = "arith.shrui"(%173, %7) : (i32, i32) -> i32
      %175 = "nvvm.shfl.sync"(%6, %174, %8, %5) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %176 = "nvvm.elect.sync"() : () -> i1
      %177 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %178 = "arith.constant"() {value = 0 : index} : () -> index
      %179 = "memref.view"(%177, %178) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1x@N@x@T@, #gpu.address_space<workgroup>>
      %180 = "builtin.unrealized_conversion_cast"(%179) {transforms = []} : (memref<1x@N@x@T@, #gpu.address_space<workgroup>>) -> memref<1x@N@x@T@, #gpu.address_space<workgroup>>
      %181 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %182 = "arith.constant"() {value = @AL@ : index} : () -> index
      %183 = "memref.view"(%181, %182) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1x@N@x@T@, #gpu.address_space<workgroup>>
      %184 = "builtin.unrealized_conversion_cast"(%183) {transforms = []} : (memref<1x@N@x@T@, #gpu.address_space<workgroup>>) -> memref<1x@N@x@T@, #gpu.address_space<workgroup>>
      %185 = "memref.subview"(%179) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1, @N@>, static_strides = array<i64: 1, 1>} : (memref<1x@N@x@T@, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1]>, #gpu.address_space<workgroup>>
      %186 = "builtin.unrealized_conversion_cast"(%185) {transforms = []} : (memref<@N@x@T@, strided<[1]>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1]>, #gpu.address_space<workgroup>>
      %187 = "memref.cast"(%185) : (memref<@N@x@T@, strided<[1]>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %188 = "builtin.unrealized_conversion_cast"(%187) {transforms = []} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %189 = "builtin.unrealized_conversion_cast"(%154) : (!llvm.ptr<3>) -> memref<!mosaic_gpu.barrier, #gpu.address_space<workgroup>>
      %190 = "arith.constant"() {value = @TX@ : i32} : () -> i32
      %191 = "builtin.unrealized_conversion_cast"(%189) : (memref<!mosaic_gpu.barrier, #gpu.address_space<workgroup>>) -> !llvm.ptr<3>
      %192 = "arith.constant"() {value = 0 : i64} : () -> i64
      %193 = "llvm.getelementptr"(%191, %192) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>
      %194 = "nvvm.mbarrier.arrive.expect_tx"(%193, %190) {relaxed = false, scope = #nvvm.mem_scope<cta>} : (!llvm.ptr<3>, i32) -> i64
      %195 = "builtin.unrealized_conversion_cast"(%189) : (memref<!mosaic_gpu.barrier, #gpu.address_space<workgroup>>) -> !llvm.ptr<3>
      %196 = "arith.constant"() {value = 0 : i64} : () -> i64
      %197 = "arith.index_cast"(%8) : (i32) -> index
      %198 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %199 = "arith.index_cast"(%198) : (index) -> i32
      %200 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %201 = "arith.index_cast"(%200) : (index) -> i32
      %202 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %203 = "arith.index_cast"(%202) : (index) -> i32
      %204 = "arith.muli"(%203, %201) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %205 = "arith.addi"(%199, %204) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %206 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %207 = "arith.index_cast"(%206) : (index) -> i32
      %208 = "arith.muli"(%201, %207) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %209 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %210 = "arith.index_cast"(%209) : (index) -> i32
      %211 = "arith.muli"(%210, %208) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %212 = "arith.addi"(%205, %211) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %213 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %214 = "arith.index_cast"(%213) : (index) -> i32
      %215 = "arith.muli"(%208, %214) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %216 = "arith.constant"() {value = 7 : i32} : () -> i32
      %217 = "arith.shrui"(%212, %216) : (i32, i32) -> i32
      %218 = "arith.constant"() {value = 1 : i32} : () -> i32
      %219 = "arith.addi"(%217, %218) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %220 = "llvm.inline_asm"(%219) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %221:4 = "memref.extract_strided_metadata"(%187) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index)
      %222 = "memref.reinterpret_cast"(%187, %221#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %223 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
      %224 = "builtin.unrealized_conversion_cast"(%222) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
      %225 = "llvm.extractvalue"(%224) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
      %226 = "llvm.extractvalue"(%224) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %227 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %228 = "llvm.mul"(%226, %227) : (i64, i64) -> i64
      %229 = "llvm.ptrtoint"(%225) : (!llvm.ptr<3>) -> i64
      %230 = "llvm.add"(%229, %228) : (i64, i64) -> i64
      %231 = "llvm.inttoptr"(%230) : (i64) -> !llvm.ptr<3>
      %232 = "memref.reinterpret_cast"(%25) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@>) -> memref<@N@x@T@, strided<[1]>>
      %233 = "arith.index_cast"(%197) : (index) -> i32
      %234 = "llvm.getelementptr"(%195, %196) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>
      "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%231, %62, %233, %234, %115) {isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1>} : (!llvm.ptr<3>, !llvm.ptr, i32, !llvm.ptr<3>, i1) -> ()
      %235 = "memref.load"(%157) : (memref<i32>) -> i32
      %236 = "arith.andi"(%235, %4) : (i32, i32) -> i32
      %237 = "arith.cmpi"(%236, %8) {predicate = 1 : i64} : (i32, i32) -> i1
      %238 = "arith.xori"(%235, %4) : (i32, i32) -> i32
      "memref.store"(%238, %157) : (i32, memref<i32>) -> ()
      %239 = "arith.extui"(%237) : (i1) -> i32
      "nvvm.mbarrier.try_wait.parity"(%154, %239, %3) : (!llvm.ptr<3>, i32, i32) -> ()
      %240 = "memref.subview"(%183) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1, @N@>, static_strides = array<i64: 1, 1>} : (memref<1x@N@x@T@, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1]>, #gpu.address_space<workgroup>>
      %241 = "builtin.unrealized_conversion_cast"(%240) {transforms = []} : (memref<@N@x@T@, strided<[1]>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1]>, #gpu.address_space<workgroup>>
      %242 = "memref.cast"(%240) : (memref<@N@x@T@, strided<[1]>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %243 = "builtin.unrealized_conversion_cast"(%242) {transforms = []} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %244 = "memref.collapse_shape"(%187) {reassociation = [[0]]} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %245 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %246 = "arith.constant"() {value = 128 : index} : () -> index
      %247 = "arith.remui"(%245, %246) : (index, index) -> index
      %248 = "arith.constant"() {value = @PER@ : index} : () -> index
      %249 = "arith.muli"(%247, %248) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %250 = "arith.constant"() {value = 0 : index} : () -> index
      %251 = "arith.addi"(%249, %250) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %x0 = "vector.load"(%244, %251) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> vector<@PER@x@T@>
?2      %x1o = "arith.constant"() {value = 128 : index} : () -> index
?2      %x1i = "arith.addi"(%249, %x1o) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?2      %x1 = "vector.load"(%244, %x1i) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> vector<@PER@x@T@>
?1      %253 = "builtin.unrealized_conversion_cast"(%x0) {layout = #mosaic_gpu.WGStridedFragLayout<[@N@], @PER@>} : (vector<@PER@x@T@>) -> vector<@N@x@T@>
?2      %253 = "builtin.unrealized_conversion_cast"(%x0, %x1) {layout = #mosaic_gpu.WGStridedFragLayout<[@N@], @PER@>} : (vector<@PER@x@T@>, vector<@PER@x@T@>) -> vector<@N@x@T@>
?A      %254 = "vector.broadcast"(%0) : (@T@) -> vector<@PER@x@T@>
?A      %y0 = "arith.@ADD@"(%x0, %254) {@FLAGS@} : (vector<@PER@x@T@>, vector<@PER@x@T@>) -> vector<@PER@x@T@>
?A?2      %y1 = "arith.@ADD@"(%x1, %254) {@FLAGS@} : (vector<@PER@x@T@>, vector<@PER@x@T@>) -> vector<@PER@x@T@>
?A?1      %256 = "builtin.unrealized_conversion_cast"(%y0) {layout = #mosaic_gpu.WGStridedFragLayout<[@N@], @PER@>} : (vector<@PER@x@T@>) -> vector<@N@x@T@>
?A?2      %256 = "builtin.unrealized_conversion_cast"(%y0, %y1) {layout = #mosaic_gpu.WGStridedFragLayout<[@N@], @PER@>} : (vector<@PER@x@T@>, vector<@PER@x@T@>) -> vector<@N@x@T@>
      %257 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %258 = "arith.index_cast"(%257) : (index) -> i32
      %259 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %260 = "arith.index_cast"(%259) : (index) -> i32
      %261 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %262 = "arith.index_cast"(%261) : (index) -> i32
      %263 = "arith.muli"(%262, %260) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %264 = "arith.addi"(%258, %263) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %265 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %266 = "arith.index_cast"(%265) : (index) -> i32
      %267 = "arith.muli"(%260, %266) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %268 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %269 = "arith.index_cast"(%268) : (index) -> i32
      %270 = "arith.muli"(%269, %267) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %271 = "arith.addi"(%264, %270) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %272 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %273 = "arith.index_cast"(%272) : (index) -> i32
      %274 = "arith.muli"(%267, %273) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %275 = "arith.constant"() {value = 7 : i32} : () -> i32
      %276 = "arith.shrui"(%271, %275) : (i32, i32) -> i32
      %277 = "arith.constant"() {value = 1 : i32} : () -> i32
      %278 = "arith.addi"(%276, %277) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %279 = "llvm.inline_asm"(%278) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %280 = "memref.collapse_shape"(%243) {reassociation = [[0]]} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %281 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %282 = "arith.constant"() {value = 128 : index} : () -> index
      %283 = "arith.remui"(%281, %282) : (index, index) -> index
      %284 = "arith.constant"() {value = @PER@ : index} : () -> index
      %285 = "arith.muli"(%283, %284) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %286 = "arith.constant"() {value = 0 : index} : () -> index
      %287 = "arith.addi"(%285, %286) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      "vector.store"(@Y@, %280, %287) : (vector<@PER@x@T@>, memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> ()
?2      %s1o = "arith.constant"() {value = 128 : index} : () -> index
?2      %s1i = "arith.addi"(%285, %s1o) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?2      "vector.store"(@Y1@, %280, %s1i) : (vector<@PER@x@T@>, memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> ()
      %288 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %289 = "arith.index_cast"(%288) : (index) -> i32
      %290 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %291 = "arith.index_cast"(%290) : (index) -> i32
      %292 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %293 = "arith.index_cast"(%292) : (index) -> i32
      %294 = "arith.muli"(%293, %291) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %295 = "arith.addi"(%289, %294) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %296 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %297 = "arith.index_cast"(%296) : (index) -> i32
      %298 = "arith.muli"(%291, %297) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %299 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %300 = "arith.index_cast"(%299) : (index) -> i32
      %301 = "arith.muli"(%300, %298) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %302 = "arith.addi"(%295, %301) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %303 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %304 = "arith.index_cast"(%303) : (index) -> i32
      %305 = "arith.muli"(%298, %304) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %306 = "arith.constant"() {value = 7 : i32} : () -> i32
      %307 = "arith.shrui"(%302, %306) : (i32, i32) -> i32
      %308 = "arith.constant"() {value = 1 : i32} : () -> i32
      %309 = "arith.addi"(%307, %308) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %310 = "llvm.inline_asm"(%309) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      "nvvm.fence.proxy"() {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>} : () -> ()
      %311 = "arith.shrui"(%173, %2) : (i32, i32) -> i32
      %312 = "arith.addi"(%311, %4) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %313 = "llvm.inline_asm"(%312) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %314 = "arith.index_cast"(%8) : (i32) -> index
      %315:4 = "memref.extract_strided_metadata"(%242) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index)
      %316 = "memref.reinterpret_cast"(%242, %315#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %317 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
      %318 = "builtin.unrealized_conversion_cast"(%316) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
      %319 = "llvm.extractvalue"(%318) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
      %320 = "llvm.extractvalue"(%318) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %321 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %322 = "llvm.mul"(%320, %321) : (i64, i64) -> i64
      %323 = "llvm.ptrtoint"(%319) : (!llvm.ptr<3>) -> i64
      %324 = "llvm.add"(%323, %322) : (i64, i64) -> i64
      %325 = "llvm.inttoptr"(%324) : (i64) -> !llvm.ptr<3>
      %326 = "memref.reinterpret_cast"(%33) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@>) -> memref<@N@x@T@, strided<[1]>>
      %327 = "memref.subview"(%326, %314) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @N@>, static_strides = array<i64: 1>} : (memref<@N@x@T@, strided<[1]>>, index) -> memref<@N@x@T@, strided<[1], offset: ?>>
      %328 = "builtin.unrealized_conversion_cast"(%327) : (memref<@N@x@T@, strided<[1], offset: ?>>) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %329 = "llvm.extractvalue"(%328) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr
      %330 = "llvm.extractvalue"(%328) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %331 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %332 = "llvm.mul"(%330, %331) : (i64, i64) -> i64
      %333 = "llvm.ptrtoint"(%329) : (!llvm.ptr) -> i64
      %334 = "llvm.add"(%333, %332) : (i64, i64) -> i64
      %335 = "llvm.inttoptr"(%334) : (i64) -> !llvm.ptr
      %336 = "arith.constant"() {value = @N@ : index} : () -> index
      %337:4 = "memref.extract_strided_metadata"(%327) : (memref<@N@x@T@, strided<[1], offset: ?>>) -> (memref<@T@>, index, index, index)
      %338 = "arith.minui"(%337#1, %336) : (index, index) -> index
      %339 = "arith.subi"(%336, %338) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?W      %340 = "arith.constant"() {value = @ISZ@ : index} : () -> index
?W      %341 = "arith.muli"(%339, %340) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %342 = "arith.index_cast"(%317) : (i32) -> index
?W      %343 = "arith.minui"(%342, %341) : (index, index) -> index
?N      %343 = "arith.minui"(%342, %339) : (index, index) -> index
      %344 = "arith.index_cast"(%343) : (index) -> i32
      %345 = "llvm.inline_asm"(%115, %335, %325, %344) {asm_string = "\0A          @$0 cp.async.bulk.global.shared::cta.bulk_group [$1], [$2], $3;\0A          ", constraints = "b,l,l,r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i1, !llvm.ptr, !llvm.ptr<3>, i32) -> !llvm.void
      "nvvm.cp.async.bulk.commit.group"() : () -> ()
      "nvvm.cp.async.bulk.wait_group"() {group = 0 : i32} : () -> ()
      %346 = "llvm.inline_asm"(%312) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      "gpu.terminator"() : () -> ()
    }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1@ASYNC_OBJECT@>} : (!gpu.async.token, index, index, index, index, index, index, i32) -> !gpu.async.token
    "func.return"() : () -> ()
  }) {function_type = (!llvm.ptr, !llvm.ptr) -> (), llvm.emit_c_interface, sym_name = "@KERNEL@_mosaic_gpu"} : () -> ()
}) {mosaic_gpu.arch_major = @MAJOR@ : i32, mosaic_gpu.arch_minor = @MINOR@ : i32, @DUMP@stable_mosaic_gpu.version = @VERSION@ : i64} : () -> ()
//! tiled
"builtin.module"() <{sym_name = "@KERNEL@"}> ({
  "func.func"() ({
  }) {function_type = (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> (), sym_name = "mosaic_gpu_init_tma_desc", sym_visibility = "private"} : () -> ()
  "llvm.mlir.global"() ({
  }) {addr_space = 4 : i32, global_type = !llvm.array<0 x i8>, linkage = #llvm.linkage<external>, sym_name = "global_scratch", visibility_ = 0 : i64} : () -> ()
  "func.func"() ({
  ^bb0(%arg0: !llvm.ptr, %arg1: !llvm.ptr):
    %0 = "builtin.unrealized_conversion_cast"(%arg0) : (!llvm.ptr) -> !gpu.async.token
    %1 = "llvm.getelementptr"(%arg1) {elem_type = !llvm.ptr, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    %2 = "llvm.load"(%1) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.ptr
    %3 = "llvm.mlir.undef"() : () -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %4 = "llvm.insertvalue"(%3, %2) {position = array<i64: 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %5 = "llvm.insertvalue"(%4, %2) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %6 = "llvm.mlir.constant"() {value = 0 : i64} : () -> i64
    %7 = "llvm.insertvalue"(%5, %6) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %8 = "llvm.mlir.constant"() {value = @R@ : i64} : () -> i64
    %9 = "llvm.insertvalue"(%7, %8) {position = array<i64: 3, 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %10 = "llvm.mlir.constant"() {value = @C@ : i64} : () -> i64
    %11 = "llvm.insertvalue"(%9, %10) {position = array<i64: 3, 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %12 = "llvm.mlir.constant"() {value = @C@ : i64} : () -> i64
    %13 = "llvm.insertvalue"(%11, %12) {position = array<i64: 4, 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %14 = "llvm.mlir.constant"() {value = 1 : i64} : () -> i64
    %15 = "llvm.insertvalue"(%13, %14) {position = array<i64: 4, 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %16 = "builtin.unrealized_conversion_cast"(%15) {mosaic_gpu.from_kernel_arg_idx = 0 : i32, mosaic_gpu.original_kernel_arg} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>) -> memref<@R@x@C@x@T@>
    %17 = "llvm.getelementptr"(%arg1) {elem_type = !llvm.ptr, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
    %18 = "llvm.load"(%17) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.ptr
    %19 = "llvm.mlir.undef"() : () -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %20 = "llvm.insertvalue"(%19, %18) {position = array<i64: 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %21 = "llvm.insertvalue"(%20, %18) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %22 = "llvm.mlir.constant"() {value = 0 : i64} : () -> i64
    %23 = "llvm.insertvalue"(%21, %22) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %24 = "llvm.mlir.constant"() {value = @R@ : i64} : () -> i64
    %25 = "llvm.insertvalue"(%23, %24) {position = array<i64: 3, 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %26 = "llvm.mlir.constant"() {value = @C@ : i64} : () -> i64
    %27 = "llvm.insertvalue"(%25, %26) {position = array<i64: 3, 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %28 = "llvm.mlir.constant"() {value = @C@ : i64} : () -> i64
    %29 = "llvm.insertvalue"(%27, %28) {position = array<i64: 4, 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %30 = "llvm.mlir.constant"() {value = 1 : i64} : () -> i64
    %31 = "llvm.insertvalue"(%29, %30) {position = array<i64: 4, 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %32 = "builtin.unrealized_conversion_cast"(%31) {mosaic_gpu.from_kernel_arg_idx = 1 : i32, mosaic_gpu.original_kernel_arg} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>) -> memref<@R@x@C@x@T@>
    %33 = "arith.constant"() {value = @GC@ : index} : () -> index
    %34 = "arith.constant"() {value = @GR@ : index} : () -> index
    %35 = "arith.constant"() {value = 1 : index} : () -> index
    %36 = "arith.constant"() {value = 128 : index} : () -> index
    %37 = "arith.constant"() {value = 1 : index} : () -> index
    %38 = "arith.constant"() {value = 1 : index} : () -> index
    %39 = "arith.constant"() {value = @SMEM@ : i32} : () -> i32
    %40 = "arith.constant"() {value = 1 : i64} : () -> i64
    %41 = "llvm.alloca"(%40) {alignment = 64 : i64, elem_type = !llvm.array<@DESC@ x i8>, mosaic_gpu_smem_alloc} : (i64) -> !llvm.ptr
    %42 = "llvm.getelementptr"(%41) {elem_type = i8, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?K    %43 = "memref.reinterpret_cast"(%16) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @R@, @C@>, static_strides = array<i64: @C@, 1>} : (memref<@R@x@C@x@T@>) -> memref<@R@x@C@x@T@, strided<[@C@, 1]>>
?O    %43 = "memref.reinterpret_cast"(%16) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @C@>, static_strides = array<i64: 1>} : (memref<@R@x@C@x@T@>) -> memref<@C@x@T@, strided<[1]>>
?K    %44:6 = "memref.extract_strided_metadata"(%43) : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>) -> (memref<@T@>, index, index, index, index, index)
?O    %44:4 = "memref.extract_strided_metadata"(%43) : (memref<@C@x@T@, strided<[1]>>) -> (memref<@T@>, index, index, index)
?K    %45 = "memref.extract_aligned_pointer_as_index"(%43) : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>) -> index
?O    %45 = "memref.extract_aligned_pointer_as_index"(%43) : (memref<@C@x@T@, strided<[1]>>) -> index
    %46 = "arith.index_cast"(%45) : (index) -> i64
    %47 = "llvm.inttoptr"(%46) : (i64) -> !llvm.ptr
    %48 = "arith.index_cast"(%44#1) : (index) -> i64
    %49 = "llvm.getelementptr"(%47, %48) {elem_type = @T@, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr, i64) -> !llvm.ptr
    %50 = "arith.constant"() {value = @TMA@ : i64} : () -> i64
?K    %51 = "arith.constant"() {value = 2 : i64} : () -> i64
?O    %51 = "arith.constant"() {value = 1 : i64} : () -> i64
    %52 = "arith.index_cast"(%44#2) : (index) -> i64
?K    %53 = "arith.index_cast"(%44#3) : (index) -> i64
?K    %54 = "arith.constant"() {value = 2 : i64} : () -> i64
?O    %54 = "arith.constant"() {value = 1 : i64} : () -> i64
    %55 = "llvm.alloca"(%54) {elem_type = i64} : (i64) -> !llvm.ptr
    %56 = "llvm.getelementptr"(%55) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%52, %56) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?K    %57 = "llvm.getelementptr"(%55) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?K    "llvm.store"(%53, %57) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?K    %58 = "arith.index_cast"(%44#4) : (index) -> i64
?O    %58 = "arith.index_cast"(%44#3) : (index) -> i64
?K    %59 = "arith.index_cast"(%44#5) : (index) -> i64
?K    %60 = "arith.constant"() {value = 2 : i64} : () -> i64
?O    %60 = "arith.constant"() {value = 1 : i64} : () -> i64
    %61 = "llvm.alloca"(%60) {elem_type = i64} : (i64) -> !llvm.ptr
    %62 = "llvm.getelementptr"(%61) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%58, %62) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?K    %63 = "llvm.getelementptr"(%61) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?K    "llvm.store"(%59, %63) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    %64 = "arith.constant"() {value = 16 : i64} : () -> i64
?K    %65 = "arith.constant"() {value = @BR@ : i64} : () -> i64
    %66 = "arith.constant"() {value = @BC@ : i64} : () -> i64
?K    %67 = "arith.constant"() {value = 2 : i64} : () -> i64
?O    %67 = "arith.constant"() {value = 1 : i64} : () -> i64
    %68 = "llvm.alloca"(%67) {elem_type = i64} : (i64) -> !llvm.ptr
    %69 = "llvm.getelementptr"(%68) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?K    "llvm.store"(%65, %69) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?O    "llvm.store"(%66, %69) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?K    %70 = "llvm.getelementptr"(%68) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?K    "llvm.store"(%66, %70) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    "func.call"(%42, %49, %50, %51, %55, %61, %64, %68) {callee = @mosaic_gpu_init_tma_desc} : (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
?D    %71 = "llvm.getelementptr"(%41) {elem_type = i8, rawConstantIndices = array<i32: 128>} : (!llvm.ptr) -> !llvm.ptr
?D    %72 = "memref.reinterpret_cast"(%32) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @R@, @C@>, static_strides = array<i64: @C@, 1>} : (memref<@R@x@C@x@T@>) -> memref<@R@x@C@x@T@, strided<[@C@, 1]>>
?D    %73:6 = "memref.extract_strided_metadata"(%72) : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>) -> (memref<@T@>, index, index, index, index, index)
?D    %74 = "memref.extract_aligned_pointer_as_index"(%72) : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>) -> index
?D    %75 = "arith.index_cast"(%74) : (index) -> i64
?D    %76 = "llvm.inttoptr"(%75) : (i64) -> !llvm.ptr
?D    %77 = "arith.index_cast"(%73#1) : (index) -> i64
?D    %78 = "llvm.getelementptr"(%76, %77) {elem_type = @T@, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr, i64) -> !llvm.ptr
?D    %79 = "arith.constant"() {value = @TMA@ : i64} : () -> i64
?D    %80 = "arith.constant"() {value = 2 : i64} : () -> i64
?D    %81 = "arith.index_cast"(%73#2) : (index) -> i64
?D    %82 = "arith.index_cast"(%73#3) : (index) -> i64
?D    %83 = "arith.constant"() {value = 2 : i64} : () -> i64
?D    %84 = "llvm.alloca"(%83) {elem_type = i64} : (i64) -> !llvm.ptr
?D    %85 = "llvm.getelementptr"(%84) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%81, %85) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %86 = "llvm.getelementptr"(%84) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%82, %86) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %87 = "arith.index_cast"(%73#4) : (index) -> i64
?D    %88 = "arith.index_cast"(%73#5) : (index) -> i64
?D    %89 = "arith.constant"() {value = 2 : i64} : () -> i64
?D    %90 = "llvm.alloca"(%89) {elem_type = i64} : (i64) -> !llvm.ptr
?D    %91 = "llvm.getelementptr"(%90) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%87, %91) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %92 = "llvm.getelementptr"(%90) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%88, %92) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %93 = "arith.constant"() {value = 16 : i64} : () -> i64
?D    %94 = "arith.constant"() {value = @BR@ : i64} : () -> i64
?D    %95 = "arith.constant"() {value = @BC@ : i64} : () -> i64
?D    %96 = "arith.constant"() {value = 2 : i64} : () -> i64
?D    %97 = "llvm.alloca"(%96) {elem_type = i64} : (i64) -> !llvm.ptr
?D    %98 = "llvm.getelementptr"(%97) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%94, %98) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %99 = "llvm.getelementptr"(%97) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%95, %99) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    "func.call"(%71, %78, %79, %80, %84, %90, %93, %97) {callee = @mosaic_gpu_init_tma_desc} : (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
    %100 = "llvm.load"(%41) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.array<@DESC@ x i8>
    %101 = "gpu.launch"(%0, %33, %34, %35, %36, %37, %38, %39) ({
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index, %arg13: index):
      %102 = "builtin.unrealized_conversion_cast"(%100) : (!llvm.array<@DESC@ x i8>) -> !llvm.ptr
?D      %103 = "llvm.getelementptr"(%102) {elem_type = i8, rawConstantIndices = array<i32: 128>} : (!llvm.ptr) -> !llvm.ptr
      %104 = "llvm.getelementptr"(%102) {elem_type = i8, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
      %105 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %106 = "arith.constant"() {value = 0 : index} : () -> index
      %107 = "memref.view"(%105, %106) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<@AL2@xi8, #gpu.address_space<workgroup>>
      %108 = "arith.constant"() {value = @AL2@ : index} : () -> index
      %109 = "memref.view"(%105, %108) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1xi64, #gpu.address_space<workgroup>>
      %110 = "builtin.unrealized_conversion_cast"(%109) : (memref<1xi64, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
      %111 = "llvm.extractvalue"(%110) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
      %112 = "llvm.extractvalue"(%110) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %113 = "arith.constant"() {value = 8 : i64} : () -> i64
      %114 = "llvm.mul"(%112, %113) : (i64, i64) -> i64
      %115 = "llvm.ptrtoint"(%111) : (!llvm.ptr<3>) -> i64
      %116 = "llvm.add"(%115, %114) : (i64, i64) -> i64
      %117 = "llvm.inttoptr"(%116) : (i64) -> !llvm.ptr<3>
      %118 = "memref.alloca"() {operandSegmentSizes = array<i32: 0, 0>} : () -> memref<i32>
      %119 = "arith.constant"() {value = 0 : i32} : () -> i32
      "memref.store"(%119, %118) : (i32, memref<i32>) -> ()
      %120 = "nvvm.elect.sync"() : () -> i1
      %121 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %122 = "arith.index_cast"(%121) : (index) -> i32
      %123 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %124 = "arith.index_cast"(%123) : (index) -> i32
      %125 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %126 = "arith.index_cast"(%125) : (index) -> i32
      %127 = "arith.muli"(%126, %124) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %128 = "arith.addi"(%122, %127) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %129 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %130 = "arith.index_cast"(%129) : (index) -> i32
      %131 = "arith.muli"(%124, %130) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %132 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %133 = "arith.index_cast"(%132) : (index) -> i32
      %134 = "arith.muli"(%133, %131) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %135 = "arith.addi"(%128, %134) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %136 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %137 = "arith.index_cast"(%136) : (index) -> i32
      %138 = "arith.muli"(%131, %137) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %139 = "arith.constant"() {value = 5 : i32} : () -> i32
      %140 = "arith.shrui"(%135, %139) : (i32, i32) -> i32
      %141 = "arith.constant"() {value = -1 : i32} : () -> i32
      %142 = "arith.constant"() {value = 0 : i32} : () -> i32
      %143 = "arith.constant"() {value = 31 : i32} : () -> i32
      %144 = "nvvm.shfl.sync"(%141, %140, %142, %143) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %145 = "arith.constant"() {value = 0 : i32} : () -> i32
      %146 = "arith.cmpi"(%144, %145) {predicate = 0 : i64} : (i32, i32) -> i1
      %147 = "arith.andi"(%146, %120) : (i1, i1) -> i1
      %148 = "llvm.getelementptr"(%117) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr<3>) -> !llvm.ptr<3>
      %149 = "arith.constant"() {value = 128 : i32} : () -> i32
      "nvvm.mbarrier.init"(%148, %149, %147) : (!llvm.ptr<3>, i32, i1) -> ()
      %150 = "arith.constant"() {value = 0 : i32} : () -> i32
      "nvvm.fence.mbarrier.init"() : () -> ()
      "gpu.barrier"() {scope = #gpu.barrier_scope<workgroup>} : () -> ()
      %151 = "nvvm.elect.sync"() : () -> i1
      %152 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %153 = "arith.index_cast"(%152) : (index) -> i32
      %154 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %155 = "arith.index_cast"(%154) : (index) -> i32
      %156 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %157 = "arith.index_cast"(%156) : (index) -> i32
      %158 = "arith.muli"(%157, %155) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %159 = "arith.addi"(%153, %158) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %160 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %161 = "arith.index_cast"(%160) : (index) -> i32
      %162 = "arith.muli"(%155, %161) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %163 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %164 = "arith.index_cast"(%163) : (index) -> i32
      %165 = "arith.muli"(%164, %162) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %166 = "arith.addi"(%159, %165) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %167 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %168 = "arith.index_cast"(%167) : (index) -> i32
      %169 = "arith.muli"(%162, %168) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %170 = "arith.constant"() {value = 5 : i32} : () -> i32
      %171 = "arith.shrui"(%166, %170) : (i32, i32) -> i32
      %172 = "arith.constant"() {value = -1 : i32} : () -> i32
      %173 = "arith.constant"() {value = 0 : i32} : () -> i32
      %174 = "arith.constant"() {value = 31 : i32} : () -> i32
      %175 = "nvvm.shfl.sync"(%172, %171, %173, %174) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %176 = "arith.constant"() {value = 4 : i32} : () -> i32
      %177 = "arith.remui"(%175, %176) : (i32, i32) -> i32
      %178 = "arith.constant"() {value = 0 : i32} : () -> i32
      %179 = "arith.cmpi"(%177, %178) {predicate = 0 : i64} : (i32, i32) -> i1
      %180 = "arith.andi"(%179, %151) : (i1, i1) -> i1
      %181 = "nvvm.elect.sync"() : () -> i1
      %182 = "gpu.block_id"() {dimension = #gpu<dim y>} : () -> index
      %183 = "arith.index_cast"(%182) : (index) -> i32
      %184 = "gpu.block_id"() {dimension = #gpu<dim x>} : () -> index
      %185 = "arith.index_cast"(%184) : (index) -> i32
      %186 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %187 = "arith.constant"() {value = 0 : index} : () -> index
      %188 = "memref.view"(%186, %187) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>
      %189 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %190 = "arith.constant"() {value = @AL@ : index} : () -> index
      %191 = "memref.view"(%189, %190) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>
      %192 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %193 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %194 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %195 = "arith.muli"(%193, %194) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %196 = "arith.addi"(%195, %192) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %197 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %198 = "arith.addi"(%196, %197) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %199 = "arith.constant"() {value = @BR@ : i32} : () -> i32
      %200 = "arith.muli"(%183, %199) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %201 = "arith.constant"() {value = @BC@ : i32} : () -> i32
      %202 = "arith.muli"(%185, %201) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %203 = "arith.index_cast"(%198) : (i@IW@) -> index
      %204 = "memref.subview"(%188, %203) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 1, @BR@, @BC@>, static_strides = array<i64: 1, 1, 1>} : (memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
      %205 = "arith.index_cast"(%200) : (i32) -> index
      %206 = "arith.index_cast"(%202) : (i32) -> index
      %207 = "arith.index_cast"(%198) : (i@IW@) -> index
      %208 = "arith.constant"() {value = 1 : index} : () -> index
      %209 = "arith.muli"(%207, %208) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %210 = "arith.index_castui"(%209) : (index) -> i32
      %211 = "arith.addi"(%150, %210) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %212 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %213 = "arith.index_cast"(%212) : (index) -> i32
      %214 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %215 = "arith.index_cast"(%214) : (index) -> i32
      %216 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %217 = "arith.index_cast"(%216) : (index) -> i32
      %218 = "arith.muli"(%217, %215) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %219 = "arith.addi"(%213, %218) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %220 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %221 = "arith.index_cast"(%220) : (index) -> i32
      %222 = "arith.muli"(%215, %221) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %223 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %224 = "arith.index_cast"(%223) : (index) -> i32
      %225 = "arith.muli"(%224, %222) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %226 = "arith.addi"(%219, %225) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %227 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %228 = "arith.index_cast"(%227) : (index) -> i32
      %229 = "arith.muli"(%222, %228) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %230 = "arith.constant"() {value = 7 : i32} : () -> i32
      %231 = "arith.shrui"(%226, %230) : (i32, i32) -> i32
      %232 = "arith.constant"() {value = 1 : i32} : () -> i32
      %233 = "arith.addi"(%231, %232) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %234 = "llvm.inline_asm"(%233) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %235 = "arith.constant"() {value = @TX@ : i32} : () -> i32
      %236 = "llvm.getelementptr"(%117, %211) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
      %237 = "nvvm.mbarrier.arrive.expect_tx"(%236, %235) {relaxed = false, scope = #nvvm.mem_scope<cta>} : (!llvm.ptr<3>, i32) -> i64
      %238:6 = "memref.extract_strided_metadata"(%204) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index, index, index)
?K      %239 = "memref.reinterpret_cast"(%204, %238#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BR@, @BC@>, static_strides = array<i64: @BC@, 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
?O      %239 = "memref.reinterpret_cast"(%204, %238#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BC@>, static_strides = array<i64: 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %240 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
?K      %241 = "builtin.unrealized_conversion_cast"(%239) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
?O      %241 = "builtin.unrealized_conversion_cast"(%239) : (memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
?K      %242 = "llvm.extractvalue"(%241) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> !llvm.ptr<3>
?O      %242 = "llvm.extractvalue"(%241) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
?K      %243 = "llvm.extractvalue"(%241) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> i64
?O      %243 = "llvm.extractvalue"(%241) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %244 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %245 = "llvm.mul"(%243, %244) : (i64, i64) -> i64
      %246 = "llvm.ptrtoint"(%242) : (!llvm.ptr<3>) -> i64
      %247 = "llvm.add"(%246, %245) : (i64, i64) -> i64
      %248 = "llvm.inttoptr"(%247) : (i64) -> !llvm.ptr<3>
?K      %249 = "memref.reinterpret_cast"(%16) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @R@, @C@>, static_strides = array<i64: @C@, 1>} : (memref<@R@x@C@x@T@>) -> memref<@R@x@C@x@T@, strided<[@C@, 1]>>
?O      %249 = "memref.reinterpret_cast"(%16) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @C@>, static_strides = array<i64: 1>} : (memref<@R@x@C@x@T@>) -> memref<@C@x@T@, strided<[1]>>
      %250 = "arith.index_cast"(%206) : (index) -> i32
?K      %251 = "arith.index_cast"(%205) : (index) -> i32
      %252 = "llvm.getelementptr"(%117, %211) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
?K      "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%248, %104, %250, %251, %252, %180) {isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 2, 1, 0, 0, 0, 1>} : (!llvm.ptr<3>, !llvm.ptr, i32, i32, !llvm.ptr<3>, i1) -> ()
?O      "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%248, %104, %250, %252, %180) {isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1>} : (!llvm.ptr<3>, !llvm.ptr, i32, !llvm.ptr<3>, i1) -> ()
      %253 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %254 = "arith.addi"(%192, %253) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %255 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %256 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %257 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %258 = "arith.muli"(%256, %257) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %259 = "arith.addi"(%258, %255) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %260 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %261 = "arith.addi"(%259, %260) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %262 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %263 = "arith.remsi"(%261, %262) : (i@IW@, i@IW@) -> i@IW@
      %264 = "arith.index_cast"(%263) : (i@IW@) -> index
      %265 = "arith.constant"() {value = 1 : index} : () -> index
      %266 = "arith.muli"(%264, %265) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
      %267 = "arith.index_castui"(%266) : (index) -> i32
      %268 = "arith.addi"(%150, %267) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %269 = "memref.load"(%118) : (memref<i32>) -> i32
      %270 = "arith.constant"() {value = 1 : i32} : () -> i32
      %271 = "arith.shli"(%270, %268) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %272 = "arith.andi"(%269, %271) : (i32, i32) -> i32
      %273 = "arith.constant"() {value = 0 : i32} : () -> i32
      %274 = "arith.cmpi"(%272, %273) {predicate = 1 : i64} : (i32, i32) -> i1
      %275 = "arith.xori"(%269, %271) : (i32, i32) -> i32
      "memref.store"(%275, %118) : (i32, memref<i32>) -> ()
      %276 = "arith.constant"() {value = 10000000 : i32} : () -> i32
      %277 = "arith.extui"(%274) : (i1) -> i32
      %278 = "llvm.getelementptr"(%117, %268) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
      "nvvm.mbarrier.try_wait.parity"(%278, %277, %276) : (!llvm.ptr<3>, i32, i32) -> ()
      %279 = "arith.index_cast"(%263) : (i@IW@) -> index
      %280 = "memref.subview"(%188, %279) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 1, @BR@, @BC@>, static_strides = array<i64: 1, 1, 1>} : (memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
      %281 = "arith.index_cast"(%263) : (i@IW@) -> index
      %282 = "memref.subview"(%191, %281) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 1, @BR@, @BC@>, static_strides = array<i64: 1, 1, 1>} : (memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
      %283 = "gpu.block_id"() {dimension = #gpu<dim y>} : () -> index
      %284 = "arith.index_cast"(%283) : (index) -> i32
      %285 = "gpu.block_id"() {dimension = #gpu<dim x>} : () -> index
      %286 = "arith.index_cast"(%285) : (index) -> i32
      %287 = "memref.collapse_shape"(%280) {reassociation = [[0, 1]]} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %288 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %289 = "arith.constant"() {value = 128 : index} : () -> index
      %290 = "arith.remui"(%288, %289) : (index, index) -> index
      %291 = "arith.constant"() {value = @PER@ : index} : () -> index
      %292 = "arith.muli"(%290, %291) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      %r322o@I@ = "arith.constant"() {value = @OFF@ : index} : () -> index
?R      %r322i@I@ = "arith.addi"(%292, %r322o@I@) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      %r322v@I@ = "vector.load"(%287, %r322i@I@) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> vector<@PER@x@T@>
      %305 = "arith.constant"() {value = @ONE@} : () -> @T@
      %306 = "vector.broadcast"(%305) : (@T@) -> vector<@PER@x@T@>
?R      %y@I@ = "arith.@ADD@"(%r322v@I@, %306) {@FLAGS@} : (vector<@PER@x@T@>, vector<@PER@x@T@>) -> vector<@PER@x@T@>
      %311 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %312 = "arith.index_cast"(%311) : (index) -> i32
      %313 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %314 = "arith.index_cast"(%313) : (index) -> i32
      %315 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %316 = "arith.index_cast"(%315) : (index) -> i32
      %317 = "arith.muli"(%316, %314) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %318 = "arith.addi"(%312, %317) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %319 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %320 = "arith.index_cast"(%319) : (index) -> i32
      %321 = "arith.muli"(%314, %320) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %322 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %323 = "arith.index_cast"(%322) : (index) -> i32
      %324 = "arith.muli"(%323, %321) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %325 = "arith.addi"(%318, %324) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %326 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %327 = "arith.index_cast"(%326) : (index) -> i32
      %328 = "arith.muli"(%321, %327) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %329 = "arith.constant"() {value = 7 : i32} : () -> i32
      %330 = "arith.shrui"(%325, %329) : (i32, i32) -> i32
      %331 = "arith.constant"() {value = 1 : i32} : () -> i32
      %332 = "arith.addi"(%330, %331) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %333 = "llvm.inline_asm"(%332) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %334 = "memref.collapse_shape"(%282) {reassociation = [[0, 1]]} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %335 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %336 = "arith.constant"() {value = 128 : index} : () -> index
      %337 = "arith.remui"(%335, %336) : (index, index) -> index
      %338 = "arith.constant"() {value = @PER@ : index} : () -> index
      %339 = "arith.muli"(%337, %338) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      %r358o@I@ = "arith.constant"() {value = @OFF@ : index} : () -> index
?R      %r358i@I@ = "arith.addi"(%339, %r358o@I@) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      %r358v@I@ = "vector.load"(%334, %r358i@I@) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> vector<@PER@x@T@>
      %352 = "memref.collapse_shape"(%282) {reassociation = [[0, 1]]} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %353 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %354 = "arith.constant"() {value = 128 : index} : () -> index
      %355 = "arith.remui"(%353, %354) : (index, index) -> index
      %356 = "arith.constant"() {value = @PER@ : index} : () -> index
      %357 = "arith.muli"(%355, %356) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      %r365o@I@ = "arith.constant"() {value = @OFF@ : index} : () -> index
?R      %r365i@I@ = "arith.addi"(%357, %r365o@I@) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      "vector.store"(%y@I@, %352, %r365i@I@) : (vector<@PER@x@T@>, memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> ()
      %366 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %367 = "arith.index_cast"(%366) : (index) -> i32
      %368 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %369 = "arith.index_cast"(%368) : (index) -> i32
      %370 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %371 = "arith.index_cast"(%370) : (index) -> i32
      %372 = "arith.muli"(%371, %369) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %373 = "arith.addi"(%367, %372) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %374 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %375 = "arith.index_cast"(%374) : (index) -> i32
      %376 = "arith.muli"(%369, %375) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %377 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %378 = "arith.index_cast"(%377) : (index) -> i32
      %379 = "arith.muli"(%378, %376) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %380 = "arith.addi"(%373, %379) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %381 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %382 = "arith.index_cast"(%381) : (index) -> i32
      %383 = "arith.muli"(%376, %382) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %384 = "arith.constant"() {value = 7 : i32} : () -> i32
      %385 = "arith.shrui"(%380, %384) : (i32, i32) -> i32
      %386 = "arith.constant"() {value = 1 : i32} : () -> i32
      %387 = "arith.addi"(%385, %386) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %388 = "llvm.inline_asm"(%387) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %389 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %390 = "arith.addi"(%261, %389) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      %391 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %392 = "arith.remsi"(%390, %391) : (i@IW@, i@IW@) -> i@IW@
      %393 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %394 = "arith.cmpi"(%261, %393) {predicate = 5 : i64} : (i@IW@, i@IW@) -> i1
      %395 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %396 = "arith.cmpi"(%390, %395) {predicate = 2 : i64} : (i@IW@, i@IW@) -> i1
      %397 = "arith.andi"(%394, %396) : (i1, i1) -> i1
      %398 = "arith.extui"(%397) : (i1) -> i32
      %399 = "arith.index_cast"(%398) : (i32) -> index
      "scf.index_switch"(%399) ({
        %473 = "arith.constant"() {value = @BR@ : i32} : () -> i32
        %474 = "arith.muli"(%183, %473) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %475 = "arith.constant"() {value = @BC@ : i32} : () -> i32
        %476 = "arith.muli"(%185, %475) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %477 = "arith.index_cast"(%392) : (i@IW@) -> index
        %478 = "memref.subview"(%188, %477) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 1, @BR@, @BC@>, static_strides = array<i64: 1, 1, 1>} : (memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
        %479 = "arith.index_cast"(%474) : (i32) -> index
        %480 = "arith.index_cast"(%476) : (i32) -> index
        %481 = "arith.index_cast"(%392) : (i@IW@) -> index
        %482 = "arith.constant"() {value = 1 : index} : () -> index
        %483 = "arith.muli"(%481, %482) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
        %484 = "arith.index_castui"(%483) : (index) -> i32
        %485 = "arith.addi"(%150, %484) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %486 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
        %487 = "arith.index_cast"(%486) : (index) -> i32
        %488 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
        %489 = "arith.index_cast"(%488) : (index) -> i32
        %490 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
        %491 = "arith.index_cast"(%490) : (index) -> i32
        %492 = "arith.muli"(%491, %489) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %493 = "arith.addi"(%487, %492) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %494 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
        %495 = "arith.index_cast"(%494) : (index) -> i32
        %496 = "arith.muli"(%489, %495) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %497 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
        %498 = "arith.index_cast"(%497) : (index) -> i32
        %499 = "arith.muli"(%498, %496) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %500 = "arith.addi"(%493, %499) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %501 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
        %502 = "arith.index_cast"(%501) : (index) -> i32
        %503 = "arith.muli"(%496, %502) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %504 = "arith.constant"() {value = 7 : i32} : () -> i32
        %505 = "arith.shrui"(%500, %504) : (i32, i32) -> i32
        %506 = "arith.constant"() {value = 1 : i32} : () -> i32
        %507 = "arith.addi"(%505, %506) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
        %508 = "llvm.inline_asm"(%507) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
        %509 = "arith.constant"() {value = @TX@ : i32} : () -> i32
        %510 = "llvm.getelementptr"(%117, %485) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
        %511 = "nvvm.mbarrier.arrive.expect_tx"(%510, %509) {relaxed = false, scope = #nvvm.mem_scope<cta>} : (!llvm.ptr<3>, i32) -> i64
        %512:6 = "memref.extract_strided_metadata"(%478) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index, index, index)
?K        %513 = "memref.reinterpret_cast"(%478, %512#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BR@, @BC@>, static_strides = array<i64: @BC@, 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
?O        %513 = "memref.reinterpret_cast"(%478, %512#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BC@>, static_strides = array<i64: 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
        %514 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
?K        %515 = "builtin.unrealized_conversion_cast"(%513) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
?O        %515 = "builtin.unrealized_conversion_cast"(%513) : (memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
?K        %516 = "llvm.extractvalue"(%515) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> !llvm.ptr<3>
?O        %516 = "llvm.extractvalue"(%515) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
?K        %517 = "llvm.extractvalue"(%515) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> i64
?O        %517 = "llvm.extractvalue"(%515) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
        %518 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
        %519 = "llvm.mul"(%517, %518) : (i64, i64) -> i64
        %520 = "llvm.ptrtoint"(%516) : (!llvm.ptr<3>) -> i64
        %521 = "llvm.add"(%520, %519) : (i64, i64) -> i64
        %522 = "llvm.inttoptr"(%521) : (i64) -> !llvm.ptr<3>
?K        %523 = "memref.reinterpret_cast"(%16) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @R@, @C@>, static_strides = array<i64: @C@, 1>} : (memref<@R@x@C@x@T@>) -> memref<@R@x@C@x@T@, strided<[@C@, 1]>>
?O        %523 = "memref.reinterpret_cast"(%16) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @C@>, static_strides = array<i64: 1>} : (memref<@R@x@C@x@T@>) -> memref<@C@x@T@, strided<[1]>>
        %524 = "arith.index_cast"(%480) : (index) -> i32
?K        %525 = "arith.index_cast"(%479) : (index) -> i32
        %526 = "llvm.getelementptr"(%117, %485) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>
?K        "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%522, %104, %524, %525, %526, %180) {isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 2, 1, 0, 0, 0, 1>} : (!llvm.ptr<3>, !llvm.ptr, i32, i32, !llvm.ptr<3>, i1) -> ()
?O        "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%522, %104, %524, %526, %180) {isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1>} : (!llvm.ptr<3>, !llvm.ptr, i32, !llvm.ptr<3>, i1) -> ()
        "scf.yield"() : () -> ()
      }, {
        "scf.yield"() : () -> ()
      }) {cases = array<i64: 0>} : (index) -> ()
      %400 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %401 = "arith.addi"(%255, %400) {overflowFlags = #arith.overflow<none>} : (i@IW@, i@IW@) -> i@IW@
      "nvvm.fence.proxy"() {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>} : () -> ()
      %402 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %403 = "arith.index_cast"(%402) : (index) -> i32
      %404 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %405 = "arith.index_cast"(%404) : (index) -> i32
      %406 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %407 = "arith.index_cast"(%406) : (index) -> i32
      %408 = "arith.muli"(%407, %405) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %409 = "arith.addi"(%403, %408) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %410 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %411 = "arith.index_cast"(%410) : (index) -> i32
      %412 = "arith.muli"(%405, %411) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %413 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %414 = "arith.index_cast"(%413) : (index) -> i32
      %415 = "arith.muli"(%414, %412) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %416 = "arith.addi"(%409, %415) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %417 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %418 = "arith.index_cast"(%417) : (index) -> i32
      %419 = "arith.muli"(%412, %418) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %420 = "arith.constant"() {value = 7 : i32} : () -> i32
      %421 = "arith.shrui"(%416, %420) : (i32, i32) -> i32
      %422 = "arith.constant"() {value = 1 : i32} : () -> i32
      %423 = "arith.addi"(%421, %422) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %424 = "llvm.inline_asm"(%423) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %425 = "arith.constant"() {value = 0 : i@IW@} : () -> i@IW@
      %426 = "arith.constant"() {value = 1 : i@IW@} : () -> i@IW@
      %427 = "arith.remsi"(%425, %426) : (i@IW@, i@IW@) -> i@IW@
      %428 = "arith.constant"() {value = @BR@ : i32} : () -> i32
      %429 = "arith.muli"(%183, %428) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %430 = "arith.constant"() {value = @BC@ : i32} : () -> i32
      %431 = "arith.muli"(%185, %430) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %432 = "arith.index_cast"(%427) : (i@IW@) -> index
      %433 = "memref.subview"(%191, %432) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 1, @BR@, @BC@>, static_strides = array<i64: 1, 1, 1>} : (memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
      %434 = "arith.index_cast"(%429) : (i32) -> index
      %435 = "arith.index_cast"(%431) : (i32) -> index
      %436:6 = "memref.extract_strided_metadata"(%433) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index, index, index)
?K      %437 = "memref.reinterpret_cast"(%433, %436#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BR@, @BC@>, static_strides = array<i64: @BC@, 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
?O      %437 = "memref.reinterpret_cast"(%433, %436#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BC@>, static_strides = array<i64: 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %438 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
?K      %439 = "builtin.unrealized_conversion_cast"(%437) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
?O      %439 = "builtin.unrealized_conversion_cast"(%437) : (memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
?K      %440 = "llvm.extractvalue"(%439) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> !llvm.ptr<3>
?O      %440 = "llvm.extractvalue"(%439) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
?K      %441 = "llvm.extractvalue"(%439) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> i64
?O      %441 = "llvm.extractvalue"(%439) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %442 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %443 = "llvm.mul"(%441, %442) : (i64, i64) -> i64
      %444 = "llvm.ptrtoint"(%440) : (!llvm.ptr<3>) -> i64
      %445 = "llvm.add"(%444, %443) : (i64, i64) -> i64
      %446 = "llvm.inttoptr"(%445) : (i64) -> !llvm.ptr<3>
?K      %447 = "memref.reinterpret_cast"(%32) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @R@, @C@>, static_strides = array<i64: @C@, 1>} : (memref<@R@x@C@x@T@>) -> memref<@R@x@C@x@T@, strided<[@C@, 1]>>
?O      %447 = "memref.reinterpret_cast"(%32) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @C@>, static_strides = array<i64: 1>} : (memref<@R@x@C@x@T@>) -> memref<@C@x@T@, strided<[1]>>
?D      %448 = "arith.index_cast"(%435) : (index) -> i32
?D      %449 = "arith.index_cast"(%434) : (index) -> i32
?D      "nvvm.cp.async.bulk.tensor.global.shared.cta"(%103, %446, %448, %449, %180) {mode = #nvvm.tma_store_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1>} : (!llvm.ptr, !llvm.ptr<3>, i32, i32, i1) -> ()
?K?B      %b418 = "memref.subview"(%447, %434, %435) {operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: @BR@, @BC@>, static_strides = array<i64: 1, 1>} : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>, index, index) -> memref<@BR@x@BC@x@T@, strided<[@C@, 1], offset: ?>>
?O?B      %b418 = "memref.subview"(%447, %435) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BC@>, static_strides = array<i64: 1>} : (memref<@C@x@T@, strided<[1]>>, index) -> memref<@BC@x@T@, strided<[1], offset: ?>>
?K?B      %b419 = "builtin.unrealized_conversion_cast"(%b418) : (memref<@BR@x@BC@x@T@, strided<[@C@, 1], offset: ?>>) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
?O?B      %b419 = "builtin.unrealized_conversion_cast"(%b418) : (memref<@BC@x@T@, strided<[1], offset: ?>>) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
?K?B      %b420 = "llvm.extractvalue"(%b419) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>) -> !llvm.ptr
?O?B      %b420 = "llvm.extractvalue"(%b419) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr
?K?B      %b421 = "llvm.extractvalue"(%b419) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>) -> i64
?O?B      %b421 = "llvm.extractvalue"(%b419) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> i64
?B      %b422 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
?B      %b423 = "llvm.mul"(%b421, %b422) : (i64, i64) -> i64
?B      %b424 = "llvm.ptrtoint"(%b420) : (!llvm.ptr) -> i64
?B      %b425 = "llvm.add"(%b424, %b423) : (i64, i64) -> i64
?B      %b426 = "llvm.inttoptr"(%b425) : (i64) -> !llvm.ptr
?B      %b427 = "arith.constant"() {value = @RC@ : index} : () -> index
?K?B      %b428:6 = "memref.extract_strided_metadata"(%b418) : (memref<@BR@x@BC@x@T@, strided<[@C@, 1], offset: ?>>) -> (memref<@T@>, index, index, index, index, index)
?O?B      %b428:4 = "memref.extract_strided_metadata"(%b418) : (memref<@BC@x@T@, strided<[1], offset: ?>>) -> (memref<@T@>, index, index, index)
?B      %b429 = "arith.minui"(%b428#1, %b427) : (index, index) -> index
?B      %b430 = "arith.subi"(%b427, %b429) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?B      %b431 = "arith.constant"() {value = @ISZ@ : index} : () -> index
?B      %b432 = "arith.muli"(%b430, %b431) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?B      %b433 = "arith.index_cast"(%438) : (i32) -> index
?B      %b434 = "arith.minui"(%b433, %b432) : (index, index) -> index
?B      %b435 = "arith.index_cast"(%b434) : (index) -> i32
?B      %b436 = "llvm.inline_asm"(%180, %b426, %446, %b435) {asm_string = "\0A          @$0 cp.async.bulk.global.shared::cta.bulk_group [$1], [$2], $3;\0A          ", constraints = "b,l,l,r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i1, !llvm.ptr, !llvm.ptr<3>, i32) -> !llvm.void
      "nvvm.cp.async.bulk.commit.group"() : () -> ()
      "nvvm.cp.async.bulk.wait_group"() {group = 0 : i32} : () -> ()
      %450 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %451 = "arith.index_cast"(%450) : (index) -> i32
      %452 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %453 = "arith.index_cast"(%452) : (index) -> i32
      %454 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %455 = "arith.index_cast"(%454) : (index) -> i32
      %456 = "arith.muli"(%455, %453) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %457 = "arith.addi"(%451, %456) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %458 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %459 = "arith.index_cast"(%458) : (index) -> i32
      %460 = "arith.muli"(%453, %459) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %461 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %462 = "arith.index_cast"(%461) : (index) -> i32
      %463 = "arith.muli"(%462, %460) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %464 = "arith.addi"(%457, %463) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %465 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %466 = "arith.index_cast"(%465) : (index) -> i32
      %467 = "arith.muli"(%460, %466) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %468 = "arith.constant"() {value = 7 : i32} : () -> i32
      %469 = "arith.shrui"(%464, %468) : (i32, i32) -> i32
      %470 = "arith.constant"() {value = 1 : i32} : () -> i32
      %471 = "arith.addi"(%469, %470) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %472 = "llvm.inline_asm"(%471) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      "gpu.terminator"() : () -> ()
    }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1@ASYNC_OBJECT@>} : (!gpu.async.token, index, index, index, index, index, index, i32) -> !gpu.async.token
    "func.return"() : () -> ()
  }) {function_type = (!llvm.ptr, !llvm.ptr) -> (), llvm.emit_c_interface, sym_name = "@KERNEL@_mosaic_gpu"} : () -> ()
}) {mosaic_gpu.arch_major = @MAJOR@ : i32, mosaic_gpu.arch_minor = @MINOR@ : i32, @DUMP@stable_mosaic_gpu.version = @VERSION@ : i64} : () -> ()
//! tiled-warpgroup
"builtin.module"() <{sym_name = "@KERNEL@"}> ({
  "func.func"() ({
  }) {function_type = (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> (), sym_name = "mosaic_gpu_init_tma_desc", sym_visibility = "private"} : () -> ()
  "llvm.mlir.global"() ({
  }) {addr_space = 4 : i32, global_type = !llvm.array<0 x i8>, linkage = #llvm.linkage<external>, sym_name = "global_scratch", visibility_ = 0 : i64} : () -> ()
  "func.func"() ({
  ^bb0(%arg0: !llvm.ptr, %arg1: !llvm.ptr):
    %0 = "arith.constant"() {value = @ONE@} : () -> @T@
    %1 = "builtin.unrealized_conversion_cast"(%0) {layout = #mosaic_gpu.WGSplatFragLayout<[@BR@, @BC@]>} : (@T@) -> vector<@BR@x@BC@x@T@>
?C    %2 = "arith.constant"() {value = 7 : i32} : () -> i32
?C    %3 = "arith.constant"() {value = 10000000 : i32} : () -> i32
?Y?E?C    %e4 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
?Y?C    %4 = "arith.constant"() {value = @BC@ : i32} : () -> i32
?Y?C    %5 = "arith.constant"() {value = @BR@ : i32} : () -> i32
?Y?C    %6 = "arith.constant"() {value = 1 : i32} : () -> i32
?X?C    %6 = "arith.constant"() {value = 1 : i32} : () -> i32
?X?E?C    %e4 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
?X?C    %4 = "arith.constant"() {value = @BC@ : i32} : () -> i32
?X?C    %5 = "arith.constant"() {value = @BR@ : i32} : () -> i32
?C    %7 = "arith.constant"() {value = 31 : i32} : () -> i32
?C    %8 = "arith.constant"() {value = -1 : i32} : () -> i32
?C    %9 = "arith.constant"() {value = 5 : i32} : () -> i32
?C    %10 = "arith.constant"() {value = 0 : i32} : () -> i32
?C    %11 = "arith.constant"() {value = 8 : i64} : () -> i64
?C    %12 = "arith.constant"() {value = @SMEM@ : i32} : () -> i32
?C    %13 = "arith.constant"() {value = 128 : index} : () -> index
?C    %14 = "arith.constant"() {value = 1 : index} : () -> index
?C    %15 = "arith.constant"() {value = @GR@ : index} : () -> index
?C    %16 = "arith.constant"() {value = @GC@ : index} : () -> index
?C    %17 = "llvm.mlir.constant"() {value = 1 : i64} : () -> i64
?C    %18 = "llvm.mlir.constant"() {value = @C@ : i64} : () -> i64
?C    %19 = "llvm.mlir.constant"() {value = @R@ : i64} : () -> i64
?C    %20 = "llvm.mlir.constant"() {value = 0 : i64} : () -> i64
    %21 = "llvm.mlir.undef"() : () -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %22 = "builtin.unrealized_conversion_cast"(%arg0) : (!llvm.ptr) -> !gpu.async.token
    %23 = "llvm.load"(%arg1) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.ptr
    %24 = "llvm.insertvalue"(%21, %23) {position = array<i64: 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %25 = "llvm.insertvalue"(%24, %23) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %26 = "llvm.insertvalue"(%25, %20) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %27 = "llvm.insertvalue"(%26, %19) {position = array<i64: 3, 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %28 = "llvm.insertvalue"(%27, %18) {position = array<i64: 3, 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %29 = "llvm.insertvalue"(%28, %18) {position = array<i64: 4, 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %30 = "llvm.insertvalue"(%29, %17) {position = array<i64: 4, 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %31 = "builtin.unrealized_conversion_cast"(%30) {mosaic_gpu.from_kernel_arg_idx = 0 : i32, mosaic_gpu.original_kernel_arg} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>) -> memref<@R@x@C@x@T@>
    %32 = "llvm.getelementptr"(%arg1) {elem_type = !llvm.ptr, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
    %33 = "llvm.load"(%32) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.ptr
    %34 = "llvm.insertvalue"(%21, %33) {position = array<i64: 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %35 = "llvm.insertvalue"(%34, %33) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %36 = "llvm.insertvalue"(%35, %20) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %37 = "llvm.insertvalue"(%36, %19) {position = array<i64: 3, 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %38 = "llvm.insertvalue"(%37, %18) {position = array<i64: 3, 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %39 = "llvm.insertvalue"(%38, %18) {position = array<i64: 4, 0>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %40 = "llvm.insertvalue"(%39, %17) {position = array<i64: 4, 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %41 = "builtin.unrealized_conversion_cast"(%40) {mosaic_gpu.from_kernel_arg_idx = 1 : i32, mosaic_gpu.original_kernel_arg} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>) -> memref<@R@x@C@x@T@>
    %42 = "arith.constant"() {value = 1 : i64} : () -> i64
    %43 = "llvm.alloca"(%42) {alignment = 64 : i64, elem_type = !llvm.array<@DESC@ x i8>, mosaic_gpu_smem_alloc} : (i64) -> !llvm.ptr
    %44 = "llvm.getelementptr"(%43) {elem_type = i8, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?K    %45 = "memref.reinterpret_cast"(%31) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @R@, @C@>, static_strides = array<i64: @C@, 1>} : (memref<@R@x@C@x@T@>) -> memref<@R@x@C@x@T@, strided<[@C@, 1]>>
?O    %45 = "memref.reinterpret_cast"(%31) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @C@>, static_strides = array<i64: 1>} : (memref<@R@x@C@x@T@>) -> memref<@C@x@T@, strided<[1]>>
?K    %46:6 = "memref.extract_strided_metadata"(%45) : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>) -> (memref<@T@>, index, index, index, index, index)
?O    %46:4 = "memref.extract_strided_metadata"(%45) : (memref<@C@x@T@, strided<[1]>>) -> (memref<@T@>, index, index, index)
?K    %47 = "memref.extract_aligned_pointer_as_index"(%45) : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>) -> index
?O    %47 = "memref.extract_aligned_pointer_as_index"(%45) : (memref<@C@x@T@, strided<[1]>>) -> index
    %48 = "arith.index_cast"(%47) : (index) -> i64
    %49 = "llvm.inttoptr"(%48) : (i64) -> !llvm.ptr
    %50 = "arith.index_cast"(%46#1) : (index) -> i64
    %51 = "llvm.getelementptr"(%49, %50) {elem_type = @T@, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr, i64) -> !llvm.ptr
    %52 = "arith.constant"() {value = @TMA@ : i64} : () -> i64
?K    %53 = "arith.constant"() {value = 2 : i64} : () -> i64
?O    %53 = "arith.constant"() {value = 1 : i64} : () -> i64
    %54 = "arith.index_cast"(%46#2) : (index) -> i64
?K    %55 = "arith.index_cast"(%46#3) : (index) -> i64
?K    %56 = "arith.constant"() {value = 2 : i64} : () -> i64
?O    %56 = "arith.constant"() {value = 1 : i64} : () -> i64
    %57 = "llvm.alloca"(%56) {elem_type = i64} : (i64) -> !llvm.ptr
    %58 = "llvm.getelementptr"(%57) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%54, %58) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?K    %59 = "llvm.getelementptr"(%57) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?K    "llvm.store"(%55, %59) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?K    %60 = "arith.index_cast"(%46#4) : (index) -> i64
?O    %60 = "arith.index_cast"(%46#3) : (index) -> i64
?K    %61 = "arith.index_cast"(%46#5) : (index) -> i64
?K    %62 = "arith.constant"() {value = 2 : i64} : () -> i64
?O    %62 = "arith.constant"() {value = 1 : i64} : () -> i64
    %63 = "llvm.alloca"(%62) {elem_type = i64} : (i64) -> !llvm.ptr
    %64 = "llvm.getelementptr"(%63) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
    "llvm.store"(%60, %64) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?K    %65 = "llvm.getelementptr"(%63) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?K    "llvm.store"(%61, %65) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    %66 = "arith.constant"() {value = 16 : i64} : () -> i64
?K    %67 = "arith.constant"() {value = @BR@ : i64} : () -> i64
    %68 = "arith.constant"() {value = @BC@ : i64} : () -> i64
?K    %69 = "arith.constant"() {value = 2 : i64} : () -> i64
?O    %69 = "arith.constant"() {value = 1 : i64} : () -> i64
    %70 = "llvm.alloca"(%69) {elem_type = i64} : (i64) -> !llvm.ptr
    %71 = "llvm.getelementptr"(%70) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?K    "llvm.store"(%67, %71) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?O    "llvm.store"(%68, %71) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?K    %72 = "llvm.getelementptr"(%70) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?K    "llvm.store"(%68, %72) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
    "func.call"(%44, %51, %52, %53, %57, %63, %66, %70) {callee = @mosaic_gpu_init_tma_desc} : (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
?D    %73 = "llvm.getelementptr"(%43) {elem_type = i8, rawConstantIndices = array<i32: 128>} : (!llvm.ptr) -> !llvm.ptr
?D    %74 = "memref.reinterpret_cast"(%41) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @R@, @C@>, static_strides = array<i64: @C@, 1>} : (memref<@R@x@C@x@T@>) -> memref<@R@x@C@x@T@, strided<[@C@, 1]>>
?D    %75:6 = "memref.extract_strided_metadata"(%74) : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>) -> (memref<@T@>, index, index, index, index, index)
?D    %76 = "memref.extract_aligned_pointer_as_index"(%74) : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>) -> index
?D    %77 = "arith.index_cast"(%76) : (index) -> i64
?D    %78 = "llvm.inttoptr"(%77) : (i64) -> !llvm.ptr
?D    %79 = "arith.index_cast"(%75#1) : (index) -> i64
?D    %80 = "llvm.getelementptr"(%78, %79) {elem_type = @T@, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr, i64) -> !llvm.ptr
?D    %81 = "arith.constant"() {value = @TMA@ : i64} : () -> i64
?D    %82 = "arith.constant"() {value = 2 : i64} : () -> i64
?D    %83 = "arith.index_cast"(%75#2) : (index) -> i64
?D    %84 = "arith.index_cast"(%75#3) : (index) -> i64
?D    %85 = "arith.constant"() {value = 2 : i64} : () -> i64
?D    %86 = "llvm.alloca"(%85) {elem_type = i64} : (i64) -> !llvm.ptr
?D    %87 = "llvm.getelementptr"(%86) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%83, %87) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %88 = "llvm.getelementptr"(%86) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%84, %88) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %89 = "arith.index_cast"(%75#4) : (index) -> i64
?D    %90 = "arith.index_cast"(%75#5) : (index) -> i64
?D    %91 = "arith.constant"() {value = 2 : i64} : () -> i64
?D    %92 = "llvm.alloca"(%91) {elem_type = i64} : (i64) -> !llvm.ptr
?D    %93 = "llvm.getelementptr"(%92) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%89, %93) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %94 = "llvm.getelementptr"(%92) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%90, %94) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %95 = "arith.constant"() {value = 16 : i64} : () -> i64
?D    %96 = "arith.constant"() {value = @BR@ : i64} : () -> i64
?D    %97 = "arith.constant"() {value = @BC@ : i64} : () -> i64
?D    %98 = "arith.constant"() {value = 2 : i64} : () -> i64
?D    %99 = "llvm.alloca"(%98) {elem_type = i64} : (i64) -> !llvm.ptr
?D    %100 = "llvm.getelementptr"(%99) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%96, %100) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    %101 = "llvm.getelementptr"(%99) {elem_type = i64, rawConstantIndices = array<i32: 1>} : (!llvm.ptr) -> !llvm.ptr
?D    "llvm.store"(%97, %101) {ordering = 0 : i64} : (i64, !llvm.ptr) -> ()
?D    "func.call"(%73, %80, %81, %82, %86, %92, %95, %99) {callee = @mosaic_gpu_init_tma_desc} : (!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
    %102 = "llvm.load"(%43) {ordering = 0 : i64} : (!llvm.ptr) -> !llvm.array<@DESC@ x i8>
    %103 = "gpu.launch"(%22, %16, %15, %14, %13, %14, %14, %12) ({
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index, %arg13: index):
      %104 = "builtin.unrealized_conversion_cast"(%102) : (!llvm.array<@DESC@ x i8>) -> !llvm.ptr
?D      %105 = "llvm.getelementptr"(%104) {elem_type = i8, rawConstantIndices = array<i32: 128>} : (!llvm.ptr) -> !llvm.ptr
      %106 = "llvm.getelementptr"(%104) {elem_type = i8, rawConstantIndices = array<i32: 0>} : (!llvm.ptr) -> !llvm.ptr
      %107 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %108 = "arith.index_cast"(%107) : (index) -> i32
      %109 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %110 = "arith.index_cast"(%109) : (index) -> i32
      %111 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %112 = "arith.index_cast"(%111) : (index) -> i32
      %113 = "arith.muli"(%112, %110) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %114 = "arith.addi"(%108, %113) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %115 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %116 = "arith.index_cast"(%115) : (index) -> i32
      %117 = "arith.muli"(%110, %116) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %118 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %119 = "arith.index_cast"(%118) : (index) -> i32
      %120 = "arith.muli"(%119, %117) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %121 = "arith.addi"(%114, %120) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %122 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %123 = "arith.index_cast"(%122) : (index) -> i32
      %124 = "arith.muli"(%117, %123) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %125 = "arith.constant"() {value = 5 : i32} : () -> i32
      %126 = "arith.shrui"(%121, %125) : (i32, i32) -> i32
      %127 = "arith.constant"() {value = 0 : i32} : () -> i32
      %128 = "arith.cmpi"(%126, %127) {predicate = 0 : i64} : (i32, i32) -> i1
      %129 = "nvvm.elect.sync"() : () -> i1
      %130 = "nvvm.elect.sync"() : () -> i1
      %131 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %132 = "arith.index_cast"(%131) : (index) -> i32
      %133 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %134 = "arith.index_cast"(%133) : (index) -> i32
      %135 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %136 = "arith.index_cast"(%135) : (index) -> i32
      %137 = "arith.muli"(%136, %134) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %138 = "arith.addi"(%132, %137) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %139 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %140 = "arith.index_cast"(%139) : (index) -> i32
      %141 = "arith.muli"(%134, %140) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %142 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %143 = "arith.index_cast"(%142) : (index) -> i32
      %144 = "arith.muli"(%143, %141) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %145 = "arith.addi"(%138, %144) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %146 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %147 = "arith.index_cast"(%146) : (index) -> i32
      %148 = "arith.muli"(%141, %147) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %149 = "arith.constant"() {value = 5 : i32} : () -> i32
      %150 = "arith.shrui"(%145, %149) : (i32, i32) -> i32
      %151 = "arith.constant"() {value = -1 : i32} : () -> i32
      %152 = "arith.constant"() {value = 0 : i32} : () -> i32
      %153 = "arith.constant"() {value = 31 : i32} : () -> i32
      %154 = "nvvm.shfl.sync"(%151, %150, %152, %153) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %155 = "arith.constant"() {value = 4 : i32} : () -> i32
      %156 = "arith.remui"(%154, %155) : (i32, i32) -> i32
      %157 = "arith.constant"() {value = 0 : i32} : () -> i32
      %158 = "arith.cmpi"(%156, %157) {predicate = 0 : i64} : (i32, i32) -> i1
      %159 = "arith.andi"(%158, %130) : (i1, i1) -> i1
      %160 = "nvvm.elect.sync"() : () -> i1
      %161 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %162 = "arith.index_cast"(%161) : (index) -> i32
      %163 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %164 = "arith.index_cast"(%163) : (index) -> i32
      %165 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %166 = "arith.index_cast"(%165) : (index) -> i32
      %167 = "arith.muli"(%166, %164) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %168 = "arith.addi"(%162, %167) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %169 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %170 = "arith.index_cast"(%169) : (index) -> i32
      %171 = "arith.muli"(%164, %170) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %172 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %173 = "arith.index_cast"(%172) : (index) -> i32
      %174 = "arith.muli"(%173, %171) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %175 = "arith.addi"(%168, %174) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %176 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %177 = "arith.index_cast"(%176) : (index) -> i32
      %178 = "arith.muli"(%171, %177) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %179 = "arith.constant"() {value = 5 : i32} : () -> i32
      %180 = "arith.shrui"(%175, %179) : (i32, i32) -> i32
      %181 = "arith.constant"() {value = -1 : i32} : () -> i32
      %182 = "arith.constant"() {value = 0 : i32} : () -> i32
      %183 = "arith.constant"() {value = 31 : i32} : () -> i32
      %184 = "nvvm.shfl.sync"(%181, %180, %182, %183) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %185 = "arith.constant"() {value = 0 : i32} : () -> i32
      %186 = "arith.cmpi"(%184, %185) {predicate = 0 : i64} : (i32, i32) -> i1
      %187 = "arith.andi"(%186, %160) : (i1, i1) -> i1
      %188 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %189 = "arith.constant"() {value = @AL2@ : index} : () -> index
      %190 = "memref.view"(%188, %189) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1xi64, #gpu.address_space<workgroup>>
      %191 = "builtin.unrealized_conversion_cast"(%190) : (memref<1xi64, #gpu.address_space<workgroup>>) -> memref<1x!mosaic_gpu.barrier, #gpu.address_space<workgroup>>
      %192 = "builtin.unrealized_conversion_cast"(%191) : (memref<1x!mosaic_gpu.barrier, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
      %193 = "llvm.extractvalue"(%192) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
      %194 = "llvm.extractvalue"(%192) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %195 = "llvm.mul"(%194, %11) : (i64, i64) -> i64
      %196 = "llvm.ptrtoint"(%193) : (!llvm.ptr<3>) -> i64
      %197 = "llvm.add"(%196, %195) : (i64, i64) -> i64
      %198 = "llvm.inttoptr"(%197) : (i64) -> !llvm.ptr<3>
      %199 = "llvm.getelementptr"(%198) {elem_type = i64, rawConstantIndices = array<i32: 0>} : (!llvm.ptr<3>) -> !llvm.ptr<3>
      %200 = "arith.constant"() {value = 128 : i32} : () -> i32
      "nvvm.mbarrier.init"(%199, %200, %187) : (!llvm.ptr<3>, i32, i1) -> ()
      %201 = "memref.alloca"() {operandSegmentSizes = array<i32: 0, 0>} : () -> memref<i32>
      "memref.store"(%10, %201) : (i32, memref<i32>) -> ()
      "nvvm.fence.mbarrier.init"() : () -> ()
      "gpu.barrier"() {scope = #gpu.barrier_scope<workgroup>} : () -> ()
      %202 = "nvvm.elect.sync"() : () -> i1
      %203 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %204 = "arith.index_cast"(%203) : (index) -> i32
      %205 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %206 = "arith.index_cast"(%205) : (index) -> i32
      %207 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %208 = "arith.index_cast"(%207) : (index) -> i32
      %209 = "arith.muli"(%208, %206) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %210 = "arith.addi"(%204, %209) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %211 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %212 = "arith.index_cast"(%211) : (index) -> i32
      %213 = "arith.muli"(%206, %212) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %214 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %215 = "arith.index_cast"(%214) : (index) -> i32
      %216 = "arith.muli"(%215, %213) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %217 = "arith.addi"(%210, %216) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %218 = "arith.shrui"(%217, %9) : (i32, i32) -> i32
      %219 = "nvvm.shfl.sync"(%8, %218, %10, %7) {kind = #nvvm<shfl_kind idx>} : (i32, i32, i32, i32) -> i32
      %220 = "nvvm.elect.sync"() : () -> i1
      %221 = "gpu.block_id"() {dimension = #gpu<dim y>} : () -> index
      %222 = "arith.index_cast"(%221) : (index) -> i32
      %223 = "gpu.block_id"() {dimension = #gpu<dim x>} : () -> index
      %224 = "arith.index_cast"(%223) : (index) -> i32
      %225 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %226 = "arith.constant"() {value = 0 : index} : () -> index
      %227 = "memref.view"(%225, %226) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>
      %228 = "builtin.unrealized_conversion_cast"(%227) {transforms = []} : (memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>) -> memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>
      %229 = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %230 = "arith.constant"() {value = @AL@ : index} : () -> index
      %231 = "memref.view"(%229, %230) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>
      %232 = "builtin.unrealized_conversion_cast"(%231) {transforms = []} : (memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>) -> memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>
?M      %233 = "arith.muli"(%222, %5) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %234 = "arith.muli"(%224, %4) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %235 = "memref.subview"(%227) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0>, static_sizes = array<i64: 1, @BR@, @BC@>, static_strides = array<i64: 1, 1, 1>} : (memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1]>, #gpu.address_space<workgroup>>
      %236 = "builtin.unrealized_conversion_cast"(%235) {transforms = []} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1]>, #gpu.address_space<workgroup>>) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1]>, #gpu.address_space<workgroup>>
      %237 = "memref.cast"(%235) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1]>, #gpu.address_space<workgroup>>) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
      %238 = "builtin.unrealized_conversion_cast"(%237) {transforms = []} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
      %239 = "builtin.unrealized_conversion_cast"(%198) : (!llvm.ptr<3>) -> memref<!mosaic_gpu.barrier, #gpu.address_space<workgroup>>
      %240 = "arith.constant"() {value = @TX@ : i32} : () -> i32
      %241 = "builtin.unrealized_conversion_cast"(%239) : (memref<!mosaic_gpu.barrier, #gpu.address_space<workgroup>>) -> !llvm.ptr<3>
      %242 = "arith.constant"() {value = 0 : i64} : () -> i64
      %243 = "llvm.getelementptr"(%241, %242) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>
      %244 = "nvvm.mbarrier.arrive.expect_tx"(%243, %240) {relaxed = false, scope = #nvvm.mem_scope<cta>} : (!llvm.ptr<3>, i32) -> i64
      %245 = "builtin.unrealized_conversion_cast"(%239) : (memref<!mosaic_gpu.barrier, #gpu.address_space<workgroup>>) -> !llvm.ptr<3>
      %246 = "arith.constant"() {value = 0 : i64} : () -> i64
?M      %247 = "arith.index_cast"(%233) : (i32) -> index
?S      %247 = "arith.index_cast"(%222) : (i32) -> index
      %248 = "arith.index_cast"(%234) : (i32) -> index
      %249 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %250 = "arith.index_cast"(%249) : (index) -> i32
      %251 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %252 = "arith.index_cast"(%251) : (index) -> i32
      %253 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %254 = "arith.index_cast"(%253) : (index) -> i32
      %255 = "arith.muli"(%254, %252) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %256 = "arith.addi"(%250, %255) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %257 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %258 = "arith.index_cast"(%257) : (index) -> i32
      %259 = "arith.muli"(%252, %258) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %260 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %261 = "arith.index_cast"(%260) : (index) -> i32
      %262 = "arith.muli"(%261, %259) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %263 = "arith.addi"(%256, %262) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %264 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %265 = "arith.index_cast"(%264) : (index) -> i32
      %266 = "arith.muli"(%259, %265) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %267 = "arith.constant"() {value = 7 : i32} : () -> i32
      %268 = "arith.shrui"(%263, %267) : (i32, i32) -> i32
      %269 = "arith.constant"() {value = 1 : i32} : () -> i32
      %270 = "arith.addi"(%268, %269) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %271 = "llvm.inline_asm"(%270) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %272:6 = "memref.extract_strided_metadata"(%237) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index, index, index)
?K      %273 = "memref.reinterpret_cast"(%237, %272#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BR@, @BC@>, static_strides = array<i64: @BC@, 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
?O      %273 = "memref.reinterpret_cast"(%237, %272#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BC@>, static_strides = array<i64: 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %274 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
?K      %275 = "builtin.unrealized_conversion_cast"(%273) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
?O      %275 = "builtin.unrealized_conversion_cast"(%273) : (memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
?K      %276 = "llvm.extractvalue"(%275) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> !llvm.ptr<3>
?O      %276 = "llvm.extractvalue"(%275) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
?K      %277 = "llvm.extractvalue"(%275) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> i64
?O      %277 = "llvm.extractvalue"(%275) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %278 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %279 = "llvm.mul"(%277, %278) : (i64, i64) -> i64
      %280 = "llvm.ptrtoint"(%276) : (!llvm.ptr<3>) -> i64
      %281 = "llvm.add"(%280, %279) : (i64, i64) -> i64
      %282 = "llvm.inttoptr"(%281) : (i64) -> !llvm.ptr<3>
?K      %283 = "memref.reinterpret_cast"(%31) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @R@, @C@>, static_strides = array<i64: @C@, 1>} : (memref<@R@x@C@x@T@>) -> memref<@R@x@C@x@T@, strided<[@C@, 1]>>
?O      %283 = "memref.reinterpret_cast"(%31) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @C@>, static_strides = array<i64: 1>} : (memref<@R@x@C@x@T@>) -> memref<@C@x@T@, strided<[1]>>
      %284 = "arith.index_cast"(%248) : (index) -> i32
?K      %285 = "arith.index_cast"(%247) : (index) -> i32
      %286 = "llvm.getelementptr"(%245, %246) {elem_type = i64, rawConstantIndices = array<i32: -2147483648>} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>
?K      "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%282, %106, %284, %285, %286, %159) {isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 2, 1, 0, 0, 0, 1>} : (!llvm.ptr<3>, !llvm.ptr, i32, i32, !llvm.ptr<3>, i1) -> ()
?O      "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%282, %106, %284, %286, %159) {isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1>} : (!llvm.ptr<3>, !llvm.ptr, i32, !llvm.ptr<3>, i1) -> ()
      %287 = "memref.load"(%201) : (memref<i32>) -> i32
      %288 = "arith.andi"(%287, %6) : (i32, i32) -> i32
      %289 = "arith.cmpi"(%288, %10) {predicate = 1 : i64} : (i32, i32) -> i1
      %290 = "arith.xori"(%287, %6) : (i32, i32) -> i32
      "memref.store"(%290, %201) : (i32, memref<i32>) -> ()
      %291 = "arith.extui"(%289) : (i1) -> i32
      "nvvm.mbarrier.try_wait.parity"(%198, %291, %3) : (!llvm.ptr<3>, i32, i32) -> ()
      %292 = "memref.subview"(%231) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0>, static_sizes = array<i64: 1, @BR@, @BC@>, static_strides = array<i64: 1, 1, 1>} : (memref<1x@BR@x@BC@x@T@, #gpu.address_space<workgroup>>) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1]>, #gpu.address_space<workgroup>>
      %293 = "builtin.unrealized_conversion_cast"(%292) {transforms = []} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1]>, #gpu.address_space<workgroup>>) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1]>, #gpu.address_space<workgroup>>
      %294 = "memref.cast"(%292) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1]>, #gpu.address_space<workgroup>>) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
      %295 = "builtin.unrealized_conversion_cast"(%294) {transforms = []} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
      %296 = "memref.collapse_shape"(%237) {reassociation = [[0, 1]]} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %297 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %298 = "arith.constant"() {value = 128 : index} : () -> index
      %299 = "arith.remui"(%297, %298) : (index, index) -> index
      %300 = "arith.constant"() {value = @PER@ : index} : () -> index
      %301 = "arith.muli"(%299, %300) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      %r0o@I@ = "arith.constant"() {value = @OFF@ : index} : () -> index
?R      %r0i@I@ = "arith.addi"(%301, %r0o@I@) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      %r0v@I@ = "vector.load"(%296, %r0i@I@) : (memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> vector<@PER@x@T@>
      %326 = "builtin.unrealized_conversion_cast"(@[%r0v@I@]@) {layout = #mosaic_gpu.WGStridedFragLayout<[@BR@, @BC@], @PER@>} : (@[vector<@PER@x@T@>]@) -> vector<@BR@x@BC@x@T@>
      %327 = "vector.broadcast"(%0) : (@T@) -> vector<@PER@x@T@>
?R      %y@I@ = "arith.@ADD@"(%r0v@I@, %327) {@FLAGS@} : (vector<@PER@x@T@>, vector<@PER@x@T@>) -> vector<@PER@x@T@>
      %336 = "builtin.unrealized_conversion_cast"(@[%y@I@]@) {layout = #mosaic_gpu.WGStridedFragLayout<[@BR@, @BC@], @PER@>} : (@[vector<@PER@x@T@>]@) -> vector<@BR@x@BC@x@T@>
      %337 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %338 = "arith.index_cast"(%337) : (index) -> i32
      %339 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %340 = "arith.index_cast"(%339) : (index) -> i32
      %341 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %342 = "arith.index_cast"(%341) : (index) -> i32
      %343 = "arith.muli"(%342, %340) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %344 = "arith.addi"(%338, %343) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %345 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %346 = "arith.index_cast"(%345) : (index) -> i32
      %347 = "arith.muli"(%340, %346) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %348 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %349 = "arith.index_cast"(%348) : (index) -> i32
      %350 = "arith.muli"(%349, %347) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %351 = "arith.addi"(%344, %350) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %352 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %353 = "arith.index_cast"(%352) : (index) -> i32
      %354 = "arith.muli"(%347, %353) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %355 = "arith.constant"() {value = 7 : i32} : () -> i32
      %356 = "arith.shrui"(%351, %355) : (i32, i32) -> i32
      %357 = "arith.constant"() {value = 1 : i32} : () -> i32
      %358 = "arith.addi"(%356, %357) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %359 = "llvm.inline_asm"(%358) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      %360 = "memref.collapse_shape"(%295) {reassociation = [[0, 1]]} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %361 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %362 = "arith.constant"() {value = 128 : index} : () -> index
      %363 = "arith.remui"(%361, %362) : (index, index) -> index
      %364 = "arith.constant"() {value = @PER@ : index} : () -> index
      %365 = "arith.muli"(%363, %364) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      %r1o@I@ = "arith.constant"() {value = @OFF@ : index} : () -> index
?R      %r1i@I@ = "arith.addi"(%365, %r1o@I@) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?R      "vector.store"(%y@I@, %360, %r1i@I@) : (vector<@PER@x@T@>, memref<@N@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>, index) -> ()
      %382 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %383 = "arith.index_cast"(%382) : (index) -> i32
      %384 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %385 = "arith.index_cast"(%384) : (index) -> i32
      %386 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %387 = "arith.index_cast"(%386) : (index) -> i32
      %388 = "arith.muli"(%387, %385) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %389 = "arith.addi"(%383, %388) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %390 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %391 = "arith.index_cast"(%390) : (index) -> i32
      %392 = "arith.muli"(%385, %391) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %393 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %394 = "arith.index_cast"(%393) : (index) -> i32
      %395 = "arith.muli"(%394, %392) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %396 = "arith.addi"(%389, %395) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %397 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      %398 = "arith.index_cast"(%397) : (index) -> i32
      %399 = "arith.muli"(%392, %398) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %400 = "arith.constant"() {value = 7 : i32} : () -> i32
      %401 = "arith.shrui"(%396, %400) : (i32, i32) -> i32
      %402 = "arith.constant"() {value = 1 : i32} : () -> i32
      %403 = "arith.addi"(%401, %402) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %404 = "llvm.inline_asm"(%403) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      "nvvm.fence.proxy"() {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>} : () -> ()
      %405 = "arith.shrui"(%217, %2) : (i32, i32) -> i32
      %406 = "arith.addi"(%405, %6) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
      %407 = "llvm.inline_asm"(%406) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
?M      %408 = "arith.index_cast"(%233) : (i32) -> index
?S      %408 = "arith.index_cast"(%222) : (i32) -> index
      %409 = "arith.index_cast"(%234) : (i32) -> index
      %410:6 = "memref.extract_strided_metadata"(%294) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> (memref<@T@, #gpu.address_space<workgroup>>, index, index, index, index, index)
?K      %411 = "memref.reinterpret_cast"(%294, %410#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BR@, @BC@>, static_strides = array<i64: @BC@, 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>
?O      %411 = "memref.reinterpret_cast"(%294, %410#1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BC@>, static_strides = array<i64: 1>} : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>, index) -> memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
      %412 = "arith.constant"() {value = @BYTES@ : i32} : () -> i32
?K      %413 = "builtin.unrealized_conversion_cast"(%411) : (memref<@BR@x@BC@x@T@, strided<[@BC@, 1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
?O      %413 = "builtin.unrealized_conversion_cast"(%411) : (memref<@BC@x@T@, strided<[1], offset: ?>, #gpu.address_space<workgroup>>) -> !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
?K      %414 = "llvm.extractvalue"(%413) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> !llvm.ptr<3>
?O      %414 = "llvm.extractvalue"(%413) {position = array<i64: 1>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr<3>
?K      %415 = "llvm.extractvalue"(%413) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>) -> i64
?O      %415 = "llvm.extractvalue"(%413) {position = array<i64: 2>} : (!llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>) -> i64
      %416 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
      %417 = "llvm.mul"(%415, %416) : (i64, i64) -> i64
      %418 = "llvm.ptrtoint"(%414) : (!llvm.ptr<3>) -> i64
      %419 = "llvm.add"(%418, %417) : (i64, i64) -> i64
      %420 = "llvm.inttoptr"(%419) : (i64) -> !llvm.ptr<3>
?K      %421 = "memref.reinterpret_cast"(%41) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @R@, @C@>, static_strides = array<i64: @C@, 1>} : (memref<@R@x@C@x@T@>) -> memref<@R@x@C@x@T@, strided<[@C@, 1]>>
?O      %421 = "memref.reinterpret_cast"(%41) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: @C@>, static_strides = array<i64: 1>} : (memref<@R@x@C@x@T@>) -> memref<@C@x@T@, strided<[1]>>
?D      %422 = "arith.index_cast"(%409) : (index) -> i32
?D      %423 = "arith.index_cast"(%408) : (index) -> i32
?D      "nvvm.cp.async.bulk.tensor.global.shared.cta"(%105, %420, %422, %423, %159) {mode = #nvvm.tma_store_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1>} : (!llvm.ptr, !llvm.ptr<3>, i32, i32, i1) -> ()
?K?B      %b391 = "memref.subview"(%421, %408, %409) {operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: @BR@, @BC@>, static_strides = array<i64: 1, 1>} : (memref<@R@x@C@x@T@, strided<[@C@, 1]>>, index, index) -> memref<@BR@x@BC@x@T@, strided<[@C@, 1], offset: ?>>
?O?B      %b391 = "memref.subview"(%421, %409) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: @BC@>, static_strides = array<i64: 1>} : (memref<@C@x@T@, strided<[1]>>, index) -> memref<@BC@x@T@, strided<[1], offset: ?>>
?K?B      %b392 = "builtin.unrealized_conversion_cast"(%b391) : (memref<@BR@x@BC@x@T@, strided<[@C@, 1], offset: ?>>) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
?O?B      %b392 = "builtin.unrealized_conversion_cast"(%b391) : (memref<@BC@x@T@, strided<[1], offset: ?>>) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
?K?B      %b393 = "llvm.extractvalue"(%b392) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>) -> !llvm.ptr
?O?B      %b393 = "llvm.extractvalue"(%b392) {position = array<i64: 1>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> !llvm.ptr
?K?B      %b394 = "llvm.extractvalue"(%b392) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>) -> i64
?O?B      %b394 = "llvm.extractvalue"(%b392) {position = array<i64: 2>} : (!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> i64
?B      %b395 = "arith.constant"() {value = @ISZ@ : i64} : () -> i64
?B      %b396 = "llvm.mul"(%b394, %b395) : (i64, i64) -> i64
?B      %b397 = "llvm.ptrtoint"(%b393) : (!llvm.ptr) -> i64
?B      %b398 = "llvm.add"(%b397, %b396) : (i64, i64) -> i64
?B      %b399 = "llvm.inttoptr"(%b398) : (i64) -> !llvm.ptr
?B      %b400 = "arith.constant"() {value = @RC@ : index} : () -> index
?K?B      %b401:6 = "memref.extract_strided_metadata"(%b391) : (memref<@BR@x@BC@x@T@, strided<[@C@, 1], offset: ?>>) -> (memref<@T@>, index, index, index, index, index)
?O?B      %b401:4 = "memref.extract_strided_metadata"(%b391) : (memref<@BC@x@T@, strided<[1], offset: ?>>) -> (memref<@T@>, index, index, index)
?B      %b402 = "arith.minui"(%b401#1, %b400) : (index, index) -> index
?B      %b403 = "arith.subi"(%b400, %b402) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?B      %b404 = "arith.constant"() {value = @ISZ@ : index} : () -> index
?B      %b405 = "arith.muli"(%b403, %b404) {overflowFlags = #arith.overflow<none>} : (index, index) -> index
?B      %b406 = "arith.index_cast"(%412) : (i32) -> index
?B      %b407 = "arith.minui"(%b406, %b405) : (index, index) -> index
?B      %b408 = "arith.index_cast"(%b407) : (index) -> i32
?B      %b409 = "llvm.inline_asm"(%159, %b399, %420, %b408) {asm_string = "\0A          @$0 cp.async.bulk.global.shared::cta.bulk_group [$1], [$2], $3;\0A          ", constraints = "b,l,l,r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i1, !llvm.ptr, !llvm.ptr<3>, i32) -> !llvm.void
      "nvvm.cp.async.bulk.commit.group"() : () -> ()
      "nvvm.cp.async.bulk.wait_group"() {group = 0 : i32} : () -> ()
      %424 = "llvm.inline_asm"(%406) {asm_string = "bar.sync $0, 128;", constraints = "r", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>} : (i32) -> !llvm.void
      "gpu.terminator"() : () -> ()
    }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1@ASYNC_OBJECT@>} : (!gpu.async.token, index, index, index, index, index, index, i32) -> !gpu.async.token
    "func.return"() : () -> ()
  }) {function_type = (!llvm.ptr, !llvm.ptr) -> (), llvm.emit_c_interface, sym_name = "@KERNEL@_mosaic_gpu"} : () -> ()
}) {mosaic_gpu.arch_major = @MAJOR@ : i32, mosaic_gpu.arch_minor = @MINOR@ : i32, @DUMP@stable_mosaic_gpu.version = @VERSION@ : i64} : () -> ()
