module @jit_f attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<128xf32>) -> (tensor<128xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.case"(%arg0) ({
      %2 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }, {
      %2 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "mosaic_gpu_v2", called_computations = [], has_side_effect = false, mhlo.backend_config = {kernel_hash = "x`p\86\F0^\22+\FCC\90\AB9B\BC\D7\DC\94Av\8B>0\B5\04pi\A0n\BD\C3o", module = "ML\EFR\01MLIR19.1.7\00\01+\09\01\03\05\07\01\03\09\03\05\03\0B\05\05\0D\0F\07\07\11\13\15\039\1F\0B\01\1D\07\0B\1B\0B\0Be\0B\0B\13\0F\13\1F\13\0B\05\03Y\01\0B\1B\07\17\07\17\02\D5\1F\05\17\03\05\07\09\0D\0F\05\19\0D\09affine_map<(d0) -> (d0)>\00\05\1B\05\1D\03\03\03\13\11\07\01\03\03\03\17\13\03\10\00\00\E0\0F\03\03\1B\1D\05\1F#arith.fastmath<none>\00\15\03\02\04\03\0B\0B'\03\02\04\03\03\05\05\01\01\01\04\87\05\01\10\01\07\03\01\05\03\11\01\05\07\03\0F\1F\05\01\01\01\01\07\03\01\11\03\07\0B\06\01\03\05\05\01\05\07\03\01\15\03\03\0D\06\01\03\05\03\09\09\07\01\19\03\05\05\07\0B\0F\04\01\07\0D\03\05\05\00\01\06\03\01\05\01\00*\02!\13\11\13\1D\0D\0D\15\0B\0B\13\0F\0F\0F\0D\0B\11builtin\00func\00arith\00vector\00module\00return\00constant\00addf\00load\00broadcast\00store\00value\00function_type\00sym_name\00add_one\00fastmath\00", use_custom_barrier = false, uses_xla_collective_metadata = false}, operand_layouts = [dense<0> : tensor<1xindex>], output_operand_aliases = [], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>) -> tensor<128xf32>
      "stablehlo.return"(%2) : (tensor<128xf32>) -> ()
    }, {
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "mosaic_gpu_v2", called_computations = [], has_side_effect = false, mhlo.backend_config = {kernel_hash = "x`p\86\F0^\22+\FCC\90\AB9B\BC\D7\DC\94Av\8B>0\B5\04pi\A0n\BD\C3o", module = "ML\EFR\01MLIR19.1.7\00\01+\09\01\03\05\07\01\03\09\03\05\03\0B\05\05\0D\0F\07\07\11\13\15\039\1F\0B\01\1D\07\0B\1B\0B\0Be\0B\0B\13\0F\13\1F\13\0B\05\03Y\01\0B\1B\07\17\07\17\02\D5\1F\05\17\03\05\07\09\0D\0F\05\19\0D\09affine_map<(d0) -> (d0)>\00\05\1B\05\1D\03\03\03\13\11\07\01\03\03\03\17\13\03\10\00\00\E0\0F\03\03\1B\1D\05\1F#arith.fastmath<none>\00\15\03\02\04\03\0B\0B'\03\02\04\03\03\05\05\01\01\01\04\87\05\01\10\01\07\03\01\05\03\11\01\05\07\03\0F\1F\05\01\01\01\01\07\03\01\11\03\07\0B\06\01\03\05\05\01\05\07\03\01\15\03\03\0D\06\01\03\05\03\09\09\07\01\19\03\05\05\07\0B\0F\04\01\07\0D\03\05\05\00\01\06\03\01\05\01\00*\02!\13\11\13\1D\0D\0D\15\0B\0B\13\0F\0F\0F\0D\0B\11builtin\00func\00arith\00vector\00module\00return\00constant\00addf\00load\00broadcast\00store\00value\00function_type\00sym_name\00add_one\00fastmath\00", use_custom_barrier = false, uses_xla_collective_metadata = false}, operand_layouts = [dense<0> : tensor<1xindex>], output_operand_aliases = [], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>) -> tensor<128xf32>
      "stablehlo.return"(%2) : (tensor<128xf32>) -> ()
    }) : (tensor<i32>) -> tensor<128xf32>
    return %1 : tensor<128xf32>
  }
}

