module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.case"(%arg0) ({
      %2 = "stablehlo.constant"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }, {
      %2 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }, {
      %2 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }, {
      %2 = "stablehlo.constant"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%2) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "my_gpu_kernel", called_computations = [], has_side_effect = false, mhlo.backend_config = {}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      "stablehlo.return"(%2) : (tensor<2x3xf32>) -> ()
    }, {
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "my_gpu_kernel", called_computations = [], has_side_effect = false, mhlo.backend_config = {}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      "stablehlo.return"(%2) : (tensor<2x3xf32>) -> ()
    }, {
      %2 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "my_generic_kernel", called_computations = [], has_side_effect = false, mhlo.backend_config = {}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      "stablehlo.return"(%2) : (tensor<2x3xf32>) -> ()
    }) : (tensor<i32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}

