module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.case"(%arg0) ({
      %2 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }, {
      %2 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "mosaic_gpu_v2", called_computations = [], has_side_effect = false, mhlo.backend_config = {kernel_hash = "E\0A\1B\A0;8\FD*x\C85-\C1f>UP\CEo\EE\CB\1AOW\1A\0B\E3\E3\B4\02R\C8", module = "ML\EFR\01MLIR19.1.7\00\01)\09\01\03\05\07\01\03\09\03\05\03\0B\05\05\0D\0F\07\05\11\13\039\1F\0B\01\1D\07\0B\1B\0B\0Be\0B\0B\13\0F\13\1F\13\0B\05\03Y\01\0B\17\13\07\07\17\02\D1\1F\05\15\03\05\07\09\0D\0F\05\17\0D\09affine_map<(d0) -> (d0)>\00\05\19\05\1B\03\03\03\13\11\07\01\03\03\03\17%\03\09\00\00\80?\03\03\1B\1D\05\1D#arith.fastmath<none>\00\15\03!\05\0B'\03!\05\0B\03\05\05\01\01\01\04y\05\01\10\01\07\03\01\05\03\11\01\05\07\03\0D\1B\05\01\01\01\01\07\03\01\11\03\07\0B\06\01\03\03\05\01\05\07\03\01\15\03\03\09\07\01\19\03\03\05\07\09\0D\04\01\07\0B\03\05\05\00\01\06\03\01\05\01\00\FF\1F\13\11\13\1D\0D\0D\0B\0B\13\0F\0F\0F\0D\0B\11builtin\00func\00arith\00vector\00module\00return\00constant\00addf\00load\00store\00value\00function_type\00sym_name\00add_one\00fastmath\00", use_custom_barrier = false, uses_xla_collective_metadata = false}, operand_layouts = [dense<0> : tensor<1xindex>], output_operand_aliases = [], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<8xf32>) -> tensor<8xf32>
      "stablehlo.return"(%2) : (tensor<8xf32>) -> ()
    }, {
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "mosaic_gpu_v2", called_computations = [], has_side_effect = false, mhlo.backend_config = {kernel_hash = "E\0A\1B\A0;8\FD*x\C85-\C1f>UP\CEo\EE\CB\1AOW\1A\0B\E3\E3\B4\02R\C8", module = "ML\EFR\01MLIR19.1.7\00\01)\09\01\03\05\07\01\03\09\03\05\03\0B\05\05\0D\0F\07\05\11\13\039\1F\0B\01\1D\07\0B\1B\0B\0Be\0B\0B\13\0F\13\1F\13\0B\05\03Y\01\0B\17\13\07\07\17\02\D1\1F\05\15\03\05\07\09\0D\0F\05\17\0D\09affine_map<(d0) -> (d0)>\00\05\19\05\1B\03\03\03\13\11\07\01\03\03\03\17%\03\09\00\00\80?\03\03\1B\1D\05\1D#arith.fastmath<none>\00\15\03!\05\0B'\03!\05\0B\03\05\05\01\01\01\04y\05\01\10\01\07\03\01\05\03\11\01\05\07\03\0D\1B\05\01\01\01\01\07\03\01\11\03\07\0B\06\01\03\03\05\01\05\07\03\01\15\03\03\09\07\01\19\03\03\05\07\09\0D\04\01\07\0B\03\05\05\00\01\06\03\01\05\01\00\FF\1F\13\11\13\1D\0D\0D\0B\0B\13\0F\0F\0F\0D\0B\11builtin\00func\00arith\00vector\00module\00return\00constant\00addf\00load\00store\00value\00function_type\00sym_name\00add_one\00fastmath\00", use_custom_barrier = false, uses_xla_collective_metadata = false}, operand_layouts = [dense<0> : tensor<1xindex>], output_operand_aliases = [], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<8xf32>) -> tensor<8xf32>
      "stablehlo.return"(%2) : (tensor<8xf32>) -> ()
    }) : (tensor<i32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}

